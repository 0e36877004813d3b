"""Xapian BM25 over a corpus, answering queries one line at a time: the reference search engine that
bench/search/xapian.ts times the service against (issue 37).

Run with Debian's Python, which has python3-xapian:
    /usr/bin/python3 bench/search/xapian_bm25.py CORPUS.jsonl STOPWORDS_FILE

CORPUS.jsonl holds one {"id": ..., "text": ...} per line. The index is built in a temporary folder
with the service's analysis as near as Xapian allows: the English Snowball stemmer on every term,
PostgreSQL's English stop words, BM25 with k1 1.2 and b 0.75. Then it prints one line,
{"ready": documents}, and answers each line {"query": text, "k": n} read from stdin with one line
{"ids": [...]} on stdout, best first, until stdin closes.
"""

import json
import shutil
import sys
import tempfile

import xapian


def main() -> None:
    corpus_path, stop_path = sys.argv[1], sys.argv[2]
    stemmer = xapian.Stem("english")
    stopper = xapian.SimpleStopper()
    with open(stop_path, encoding="utf-8") as stop_words:
        for word in stop_words:
            if word.strip():
                stopper.add(word.strip())

    folder = tempfile.mkdtemp(prefix="bench-xapian-")
    try:
        database = xapian.WritableDatabase(folder, xapian.DB_CREATE_OR_OVERWRITE)
        indexer = xapian.TermGenerator()
        indexer.set_stemmer(stemmer)
        indexer.set_stemming_strategy(xapian.TermGenerator.STEM_ALL)
        indexer.set_stopper(stopper)
        indexer.set_stopper_strategy(xapian.TermGenerator.STOP_ALL)
        documents = 0
        with open(corpus_path, encoding="utf-8") as corpus:
            for line in corpus:
                record = json.loads(line)
                document = xapian.Document()
                indexer.set_document(document)
                indexer.index_text(record["text"])
                document.set_data(str(record["id"]))
                database.add_document(document)
                documents += 1
        database.commit()

        parser = xapian.QueryParser()
        parser.set_stemmer(stemmer)
        parser.set_stemming_strategy(xapian.QueryParser.STEM_ALL)
        parser.set_stopper(stopper)
        parser.set_default_op(xapian.Query.OP_OR)
        enquire = xapian.Enquire(database)
        # k1 1.2, k2 0 (no query-length factor), k3 1 (query term frequency), b 0.75, min_normlen 0.5.
        enquire.set_weighting_scheme(xapian.BM25Weight(1.2, 0, 1, 0.75, 0.5))

        print(json.dumps({"ready": documents}), flush=True)
        for line in sys.stdin:
            request = json.loads(line)
            # No boolean syntax or wildcards: the text as words, as the service reads a query.
            query = parser.parse_query(request["query"], 0)
            enquire.set_query(query)
            matches = enquire.get_mset(0, int(request["k"]))
            ids = [match.document.get_data().decode("utf-8") for match in matches]
            print(json.dumps({"ids": ids}), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
