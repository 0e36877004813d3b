CREATE TABLE "upload_blobs" (
	"key" uuid NOT NULL,
	"part" integer NOT NULL,
	"bytes" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "upload_blobs_key_part_pk" PRIMARY KEY("key","part")
);
--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "last_job_id" uuid;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "last_job_status" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "last_job_reason" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "last_job_message" text;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "last_job_at" timestamp with time zone;--> statement-breakpoint
UPDATE "documents" SET "last_job_status" = "status", "last_job_reason" = "reason", "last_job_message" = "message",
  "last_job_at" = "updated_at" WHERE "status" IN ('indexed', 'skipped', 'failed');--> statement-breakpoint
UPDATE "documents" SET "status" = 'indexed', "reason" = NULL, "message" = NULL WHERE "chunk_count" > 0 AND "status" <> 'indexed';
