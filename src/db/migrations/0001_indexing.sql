CREATE TABLE "chunk_embeddings" (
	"chunk_id" bigint NOT NULL,
	"team_id" integer NOT NULL,
	"model" text NOT NULL,
	"dimensions" integer NOT NULL,
	"embedding" vector NOT NULL,
	CONSTRAINT "chunk_embeddings_chunk_id_model_pk" PRIMARY KEY("chunk_id","model")
);
--> statement-breakpoint
CREATE TABLE "chunks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"document_id" integer NOT NULL,
	"team_id" integer NOT NULL,
	"connector_id" integer,
	"source" text NOT NULL,
	"position" integer NOT NULL,
	"text" text NOT NULL,
	"heading_path" text[] DEFAULT '{}'::text[] NOT NULL,
	"page_labels" text[] DEFAULT '{}'::text[] NOT NULL,
	"token_count" integer NOT NULL,
	"search" "tsvector" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "index_job_items" (
	"job_id" uuid NOT NULL,
	"external_id" text NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"reason" text,
	"message" text,
	"chunks" integer DEFAULT 0 NOT NULL,
	"document_id" integer,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"content" "bytea",
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "index_job_items_job_id_external_id_pk" PRIMARY KEY("job_id","external_id")
);
--> statement-breakpoint
CREATE TABLE "index_jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"team_id" integer NOT NULL,
	"connector_id" integer,
	"kind" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"requested_by" integer,
	"request" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"request_hash" text,
	"secrets_sealed" text,
	"expanded_at" timestamp with time zone,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "status" text DEFAULT 'indexed' NOT NULL;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "message" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "mime_type" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "content_hash" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "source_version" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "source_modified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "chunk_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "origin_id" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "metadata" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "indexed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chunk_embeddings" ADD CONSTRAINT "chunk_embeddings_chunk_id_chunks_id_fk" FOREIGN KEY ("chunk_id") REFERENCES "public"."chunks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chunks" ADD CONSTRAINT "chunks_document_id_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chunks" ADD CONSTRAINT "chunks_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "index_job_items" ADD CONSTRAINT "index_job_items_job_id_index_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."index_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "index_jobs" ADD CONSTRAINT "index_jobs_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "index_jobs" ADD CONSTRAINT "index_jobs_connector_id_connectors_id_fk" FOREIGN KEY ("connector_id") REFERENCES "public"."connectors"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "index_jobs" ADD CONSTRAINT "index_jobs_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chunk_embeddings_model_team_idx" ON "chunk_embeddings" USING btree ("model","team_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chunks_document_position_unique" ON "chunks" USING btree ("document_id","position");--> statement-breakpoint
CREATE INDEX "chunks_team_idx" ON "chunks" USING btree ("team_id","source");--> statement-breakpoint
CREATE INDEX "chunks_search_idx" ON "chunks" USING gin ("search");--> statement-breakpoint
CREATE INDEX "index_job_items_job_position_idx" ON "index_job_items" USING btree ("job_id","position");--> statement-breakpoint
CREATE INDEX "index_jobs_team_idx" ON "index_jobs" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE INDEX "index_jobs_active_hash_idx" ON "index_jobs" USING btree ("team_id","request_hash") WHERE status in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "documents_team_idx" ON "documents" USING btree ("team_id","id");