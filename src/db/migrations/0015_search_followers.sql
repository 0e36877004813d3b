CREATE TABLE "search_barriers" (
	"id" integer PRIMARY KEY NOT NULL,
	"last" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "search_followers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"acknowledged" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
-- Each statement that lists changed chunks tells the teams it changed to every listening process
-- (channel lexical_changes, payload the team's id), delivered when the writer commits, in commit
-- order. The embedded database, one process, turns it off (`app.lexical_notices` = off).
CREATE FUNCTION "lexical_changes_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('app.lexical_notices', true) IS DISTINCT FROM 'off' THEN
    PERFORM pg_notify('lexical_changes', t.team_id::text) FROM (SELECT DISTINCT team_id FROM new_changes) AS t;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "lexical_changes_notify_insert" AFTER INSERT ON "lexical_changes"
  REFERENCING NEW TABLE AS new_changes FOR EACH STATEMENT EXECUTE FUNCTION lexical_changes_notify();
