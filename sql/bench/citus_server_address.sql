-- The address and port this server is reached at, as the other nodes of a Citus cluster on
-- this machine reach it (the benchmark's coordinator and workers are all on loopback).
SELECT host(inet_server_addr()), inet_server_port()
