ALTER TABLE "access_lists" ADD COLUMN "users" integer[] DEFAULT '{}'::int[] NOT NULL;--> statement-breakpoint
-- An address counts for a reader only once it is proven, so a private upload, which named its
-- poster's address, names the poster's account too: a poster whose address is not proven still
-- opens it. The fingerprint is src/access.ts's accessFingerprint of the new list.
INSERT INTO "access_lists" ("team_id", "fingerprint", "team", "emails", "domains", "groups", "users")
  SELECT DISTINCT d."team_id",
    encode(sha256(convert_to('{"team":false,"emails":["' || u."email" || '"],"domains":[],"groups":[],"users":[' || u."id" || ']}', 'UTF8')), 'hex'),
    false, ARRAY[u."email"], '{}'::text[], '{}'::text[], ARRAY[u."id"]
  FROM "documents" AS d
  JOIN "access_lists" AS a ON a."id" = d."access_list_id"
  JOIN "users" AS u ON u."id" = d."indexed_by"
  WHERE d."source" = 'upload' AND NOT a."team" AND a."emails" = ARRAY[u."email"] AND a."domains" = '{}'
    AND a."groups" = '{}' AND a."users" = '{}'
  ON CONFLICT ("team_id", "fingerprint") DO NOTHING;
--> statement-breakpoint
UPDATE "documents" AS d SET "access_list_id" = n."id"
  FROM "access_lists" AS a, "users" AS u, "access_lists" AS n
  WHERE a."id" = d."access_list_id" AND u."id" = d."indexed_by" AND d."source" = 'upload' AND NOT a."team"
    AND a."emails" = ARRAY[u."email"] AND a."domains" = '{}' AND a."groups" = '{}' AND a."users" = '{}'
    AND n."team_id" = d."team_id" AND NOT n."team" AND n."emails" = ARRAY[u."email"] AND n."domains" = '{}'
    AND n."groups" = '{}' AND n."users" = ARRAY[u."id"];
--> statement-breakpoint
UPDATE "chunks" AS c SET "access_list_id" = d."access_list_id"
  FROM "documents" AS d
  WHERE c."document_id" = d."id" AND d."source" = 'upload' AND c."access_list_id" <> d."access_list_id";
--> statement-breakpoint
UPDATE "chunk_terms" AS p SET "access_list_id" = c."access_list_id"
  FROM "chunks" AS c JOIN "documents" AS d ON d."id" = c."document_id"
  WHERE p."chunk_id" = c."id" AND d."source" = 'upload' AND p."access_list_id" <> c."access_list_id";
--> statement-breakpoint
UPDATE "chunk_embeddings" AS e SET "access_list_id" = c."access_list_id"
  FROM "chunks" AS c JOIN "documents" AS d ON d."id" = c."document_id"
  WHERE e."chunk_id" = c."id" AND d."source" = 'upload' AND e."access_list_id" <> c."access_list_id";
