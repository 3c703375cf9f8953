-- A game's state (about 2 KB of JSON) is compressed on every action's write, as it passes
-- PostgreSQL's 2 KB threshold: lz4 does that at a fraction of pglz's cost (README
-- "Performance"). Only where the server was built with lz4; rows change over as they are written.

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE games ALTER COLUMN state SET COMPRESSION lz4;
    END IF;
END
$$;
