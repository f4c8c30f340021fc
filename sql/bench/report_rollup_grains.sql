-- `tapwire-bench report`: the rows of each grain of every measured rollup table that has grains
-- (see report_rollup_sizes.sql), counted by a statement the database builds from the table's name.
WITH measured AS (
    SELECT n.nspname, c.relname
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND c.relname LIKE 'rollup\_%' AND c.relname NOT LIKE 'rollup\_delta%'
      AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'grain' AND a.attnum > 0 AND NOT a.attisdropped)
), counted AS (
    SELECT relname, query_to_xml(format('SELECT grain, count(*) AS n FROM %I.%I GROUP BY grain ORDER BY grain', nspname, relname),
                                 false, false, '') AS result
    FROM measured
)
SELECT relname, (xpath('/row/grain/text()', r))[1]::text::int, (xpath('/row/n/text()', r))[1]::text::bigint
FROM counted, unnest(xpath('/table/row', result)) AS r
ORDER BY 1, 2
