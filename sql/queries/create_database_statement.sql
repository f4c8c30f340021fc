-- The CREATE DATABASE statement for database $1, its name quoted by PostgreSQL itself (CREATE
-- DATABASE takes no parameters, and cannot run in a function or a transaction block, so the
-- statement is built here and then run on its own).
SELECT format('CREATE DATABASE %I', $1::text)
