CREATE TABLE "lexical_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"team_id" integer NOT NULL,
	"chunk_id" bigint NOT NULL,
	"transaction_id" "xid8" DEFAULT pg_current_xact_id() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "lexical_changes_team_transaction_idx" ON "lexical_changes" USING btree ("team_id","transaction_id");--> statement-breakpoint
CREATE INDEX "lexical_changes_changed_at_idx" ON "lexical_changes" USING btree ("changed_at");--> statement-breakpoint
-- Rows arrive with every write and are deleted after a while: vacuum it often.
ALTER TABLE "lexical_changes" SET (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_scale_factor = 0.05);
--> statement-breakpoint
-- One row per chunk a statement changed postings of, in the writer's transaction (its id in transaction_id).
CREATE FUNCTION "lexical_changes_after_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lexical_changes (team_id, chunk_id) SELECT DISTINCT team_id, chunk_id FROM new_terms;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "lexical_changes_after_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lexical_changes (team_id, chunk_id) SELECT DISTINCT team_id, chunk_id FROM old_terms;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "chunk_terms_lexical_changes_insert" AFTER INSERT ON "chunk_terms"
  REFERENCING NEW TABLE AS new_terms FOR EACH STATEMENT EXECUTE FUNCTION lexical_changes_after_insert();
--> statement-breakpoint
CREATE TRIGGER "chunk_terms_lexical_changes_delete" AFTER DELETE ON "chunk_terms"
  REFERENCING OLD TABLE AS old_terms FOR EACH STATEMENT EXECUTE FUNCTION lexical_changes_after_delete();
--> statement-breakpoint
-- An update moves postings to another access list (access-lists.ts): who may read them changed.
CREATE TRIGGER "chunk_terms_lexical_changes_update" AFTER UPDATE ON "chunk_terms"
  REFERENCING NEW TABLE AS new_terms FOR EACH STATEMENT EXECUTE FUNCTION lexical_changes_after_insert();
