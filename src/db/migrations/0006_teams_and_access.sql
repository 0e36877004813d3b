CREATE TABLE "access_lists" (
	"id" serial PRIMARY KEY NOT NULL,
	"team_id" integer NOT NULL,
	"fingerprint" text NOT NULL,
	"team" boolean NOT NULL,
	"emails" text[] NOT NULL,
	"domains" text[] NOT NULL,
	"groups" text[] NOT NULL
);
--> statement-breakpoint
CREATE TABLE "team_invitations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"team_id" integer NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"code_hash" text NOT NULL,
	"invited_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"accepted_by" integer,
	"withdrawn_at" timestamp with time zone
);
--> statement-breakpoint
DROP INDEX "chunk_terms_team_term_impact_idx";--> statement-breakpoint
ALTER TABLE "chunk_embeddings" ADD COLUMN "access_list_id" integer;--> statement-breakpoint
ALTER TABLE "chunk_terms" ADD COLUMN "access_list_id" integer;--> statement-breakpoint
ALTER TABLE "chunks" ADD COLUMN "access_list_id" integer;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "access_list_id" integer;--> statement-breakpoint
ALTER TABLE "documents" ADD COLUMN "indexed_by" integer;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "role" text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "joined_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- Documents stored before access lists: uploads and wiki pages were the one-person team's, so the
-- whole team; Drive files were opened with the owner's token, so the owner alone until the next
-- sync reads their permissions. Fingerprints as src/access.ts writes them.
INSERT INTO "access_lists" ("team_id", "fingerprint", "team", "emails", "domains", "groups")
  SELECT t."id", encode(sha256(convert_to('{"team":true,"emails":[],"domains":[],"groups":[]}', 'UTF8')), 'hex'),
    true, '{}', '{}', '{}'
  FROM "teams" AS t WHERE EXISTS (SELECT 1 FROM "documents" AS d WHERE d."team_id" = t."id" AND d."source" <> 'googledrive');--> statement-breakpoint
INSERT INTO "access_lists" ("team_id", "fingerprint", "team", "emails", "domains", "groups")
  SELECT t."id", encode(sha256(convert_to('{"team":false,"emails":["' || u."email" || '"],"domains":[],"groups":[]}', 'UTF8')), 'hex'),
    false, ARRAY[u."email"], '{}', '{}'
  FROM "teams" AS t JOIN "users" AS u ON u."id" = t."owner_user_id"
  WHERE EXISTS (SELECT 1 FROM "documents" AS d WHERE d."team_id" = t."id" AND d."source" = 'googledrive');--> statement-breakpoint
UPDATE "documents" AS d SET "access_list_id" = a."id" FROM "access_lists" AS a
  WHERE a."team_id" = d."team_id" AND a."team" = (d."source" <> 'googledrive');--> statement-breakpoint
DELETE FROM "documents" WHERE "access_list_id" IS NULL;--> statement-breakpoint
UPDATE "chunks" AS c SET "access_list_id" = d."access_list_id" FROM "documents" AS d WHERE d."id" = c."document_id";--> statement-breakpoint
UPDATE "chunk_terms" AS p SET "access_list_id" = c."access_list_id" FROM "chunks" AS c WHERE c."id" = p."chunk_id";--> statement-breakpoint
UPDATE "chunk_embeddings" AS e SET "access_list_id" = c."access_list_id" FROM "chunks" AS c WHERE c."id" = e."chunk_id";--> statement-breakpoint
ALTER TABLE "documents" ALTER COLUMN "access_list_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "chunks" ALTER COLUMN "access_list_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "chunk_terms" ALTER COLUMN "access_list_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "chunk_embeddings" ALTER COLUMN "access_list_id" SET NOT NULL;--> statement-breakpoint
-- Before this, every user was the owner of a team of their own, since registration.
UPDATE "users" SET "joined_at" = "created_at";--> statement-breakpoint
ALTER TABLE "access_lists" ADD CONSTRAINT "access_lists_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_invitations" ADD CONSTRAINT "team_invitations_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_invitations" ADD CONSTRAINT "team_invitations_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_invitations" ADD CONSTRAINT "team_invitations_accepted_by_users_id_fk" FOREIGN KEY ("accepted_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "access_lists_team_fingerprint_unique" ON "access_lists" USING btree ("team_id","fingerprint");--> statement-breakpoint
CREATE UNIQUE INDEX "team_invitations_code_unique" ON "team_invitations" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "team_invitations_team_idx" ON "team_invitations" USING btree ("team_id","created_at");--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_access_list_id_access_lists_id_fk" FOREIGN KEY ("access_list_id") REFERENCES "public"."access_lists"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_indexed_by_users_id_fk" FOREIGN KEY ("indexed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chunk_terms_team_term_impact_idx" ON "chunk_terms" USING btree ("team_id","term","impact" DESC NULLS LAST,"chunk_id","frequency","chunk_length","connector_id","source","access_list_id");