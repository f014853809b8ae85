-- bench-db schema, version 7, PostgreSQL dialect: a block's tags that all its runs share
-- are indexed once (see migrations/0007_block_tags.sql).
CREATE TABLE block_tag (
    block_id bigint NOT NULL,
    key      text   NOT NULL,
    value    text   NOT NULL,
    PRIMARY KEY (key, value, block_id)
);

-- A block's runs, for the runs of the blocks with a tag (SQLite has had this index since
-- schema 1; schema 3 dropped it here when no read used it).
CREATE INDEX run_block ON run (block_id);
