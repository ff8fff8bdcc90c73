# Sourced by pgbench-server-cost.sh and pgbench-callgrind.sh: a scratch PostgreSQL cluster for pgbench, made by
# initdb from `pg_config --bindir` (as the postgres user when run as root) in a new directory under /tmp, on a free
# port; each script starts the server its own way, with server_options, and stops it and removes $dir on exit.
bin=$(pg_config --bindir)
dir=$(mktemp -d /tmp/distlock-pgbench-XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$dir"
as_pg "$bin/initdb" -D "$dir/data" -U distlock --auth=trust -E UTF8 --locale=C --no-sync > /dev/null
# No durable commits and no autovacuum; TCP on loopback only, the socket in the scratch directory.
server_options="-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c autovacuum=off"
# Creates the tables and writes floor.pgb and distlock.pgb to $dir (dev.distlock.benchmarks.jdbc.PgbenchScripts);
# arguments after the directory go to it ("bound").
write_scripts() {
	java -cp "$bench/benchmarks.jar:$bench/lib/*" dev.distlock.benchmarks.jdbc.PgbenchScripts \
		"jdbc:postgresql://127.0.0.1:$port/postgres" distlock "$dir" "$@"
}
