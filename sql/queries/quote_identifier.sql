-- An identifier quoted by the server, for DDL that takes no parameters (CREATE DATABASE).
SELECT quote_ident($1)
