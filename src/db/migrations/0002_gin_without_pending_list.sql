DROP INDEX "chunks_search_idx";--> statement-breakpoint
CREATE INDEX "chunks_search_idx" ON "chunks" USING gin ("search") WITH (fastupdate=false);