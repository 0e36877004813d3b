CREATE TABLE "chatapp_events" (
	"workspace_id" text NOT NULL,
	"event_id" text NOT NULL,
	"team_id" integer NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"reply_ts" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chatapp_events_workspace_id_event_id_pk" PRIMARY KEY("workspace_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "chunk_terms" (
	"chunk_id" bigint NOT NULL,
	"term" text NOT NULL,
	"team_id" integer NOT NULL,
	"frequency" integer NOT NULL,
	"chunk_length" integer NOT NULL,
	"impact" real NOT NULL,
	"connector_id" integer,
	"source" text NOT NULL,
	CONSTRAINT "chunk_terms_chunk_id_term_pk" PRIMARY KEY("chunk_id","term")
);
--> statement-breakpoint
ALTER TABLE "chunks" ADD COLUMN "lexical_length" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chatapp_events" ADD CONSTRAINT "chatapp_events_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chunk_terms" ADD CONSTRAINT "chunk_terms_chunk_id_chunks_id_fk" FOREIGN KEY ("chunk_id") REFERENCES "public"."chunks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chatapp_events_received_idx" ON "chatapp_events" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "chunk_terms_team_term_impact_idx" ON "chunk_terms" USING btree ("team_id","term","impact" DESC NULLS LAST,"chunk_id","frequency","chunk_length","connector_id","source");--> statement-breakpoint
-- Chunks stored before this migration: their lexical length and postings, from their tsvector.
-- The impact is postingImpactSql of src/db/repositories/documents.ts.
UPDATE "chunks" SET "lexical_length" = (SELECT coalesce(sum(array_length(t.positions, 1)), 0) FROM unnest("search") AS t);--> statement-breakpoint
INSERT INTO "chunk_terms" ("chunk_id", "term", "team_id", "frequency", "chunk_length", "impact", "connector_id", "source")
SELECT c."id", t.lexeme, c."team_id", f.frequency, c."lexical_length",
  (f.frequency / (f.frequency + 1.2 * (0.25 + 0.75 * c."lexical_length" / 150.0)))::real,
  c."connector_id", c."source"
FROM "chunks" c, unnest(c."search") AS t, LATERAL (SELECT coalesce(array_length(t.positions, 1), 1) AS frequency) AS f;--> statement-breakpoint
-- Search reads postings with index-only scans, which skip the heap only for pages the visibility
-- map marks all-visible: vacuum this insert-heavy table after 2 % new rows, not the default 20 %.
ALTER TABLE "chunk_terms" SET (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_scale_factor = 0.05);
