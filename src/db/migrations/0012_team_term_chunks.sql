CREATE TABLE "team_term_chunks" (
	"team_id" integer NOT NULL,
	"term" text NOT NULL,
	"chunks" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "team_term_chunks_team_term_idx" ON "team_term_chunks" USING btree ("team_id","term","chunks");--> statement-breakpoint
-- Deltas arrive with every write and are folded away: vacuum it often.
ALTER TABLE "team_term_chunks" SET (autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_vacuum_scale_factor = 0.05);
--> statement-breakpoint
-- One row per statement and (team, term): how many postings of the term it added to (or took from) the team.
CREATE FUNCTION "team_term_chunks_after_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO team_term_chunks (team_id, term, chunks)
    SELECT team_id, term, count(*) FROM new_terms GROUP BY team_id, term;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "team_term_chunks_after_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO team_term_chunks (team_id, term, chunks)
    SELECT team_id, term, -count(*) FROM old_terms GROUP BY team_id, term;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "chunk_terms_team_term_chunks_insert" AFTER INSERT ON "chunk_terms"
  REFERENCING NEW TABLE AS new_terms FOR EACH STATEMENT EXECUTE FUNCTION team_term_chunks_after_insert();
--> statement-breakpoint
CREATE TRIGGER "chunk_terms_team_term_chunks_delete" AFTER DELETE ON "chunk_terms"
  REFERENCING OLD TABLE AS old_terms FOR EACH STATEMENT EXECUTE FUNCTION team_term_chunks_after_delete();
--> statement-breakpoint
INSERT INTO "team_term_chunks" (team_id, term, chunks)
  SELECT team_id, term, count(*) FROM chunk_terms GROUP BY team_id, term;
