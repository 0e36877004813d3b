CREATE TABLE "team_chunk_totals" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"team_id" integer NOT NULL,
	"chunks" bigint NOT NULL,
	"lexical_length" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "team_chunk_totals_team_idx" ON "team_chunk_totals" USING btree ("team_id");--> statement-breakpoint
-- One row per statement: what it added to (or took from) each team's chunks and their length.
CREATE FUNCTION "team_chunk_totals_after_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO team_chunk_totals (team_id, chunks, lexical_length)
    SELECT team_id, count(*), sum(lexical_length) FROM new_chunks GROUP BY team_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "team_chunk_totals_after_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO team_chunk_totals (team_id, chunks, lexical_length)
    SELECT team_id, -count(*), -sum(lexical_length) FROM old_chunks GROUP BY team_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "team_chunk_totals_after_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO team_chunk_totals (team_id, chunks, lexical_length)
    SELECT team_id, sum(chunks), sum(lexical_length)
    FROM (
      SELECT team_id, 1 AS chunks, lexical_length FROM new_chunks
      UNION ALL
      SELECT team_id, -1, -lexical_length FROM old_chunks
    ) AS changes
    GROUP BY team_id
    HAVING sum(chunks) <> 0 OR sum(lexical_length) <> 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "chunks_team_totals_insert" AFTER INSERT ON "chunks"
  REFERENCING NEW TABLE AS new_chunks FOR EACH STATEMENT EXECUTE FUNCTION team_chunk_totals_after_insert();
--> statement-breakpoint
CREATE TRIGGER "chunks_team_totals_delete" AFTER DELETE ON "chunks"
  REFERENCING OLD TABLE AS old_chunks FOR EACH STATEMENT EXECUTE FUNCTION team_chunk_totals_after_delete();
--> statement-breakpoint
CREATE TRIGGER "chunks_team_totals_update" AFTER UPDATE ON "chunks"
  REFERENCING OLD TABLE AS old_chunks NEW TABLE AS new_chunks
  FOR EACH STATEMENT EXECUTE FUNCTION team_chunk_totals_after_update();
--> statement-breakpoint
INSERT INTO "team_chunk_totals" (team_id, chunks, lexical_length)
  SELECT team_id, count(*), sum(lexical_length) FROM chunks GROUP BY team_id;
