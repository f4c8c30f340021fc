# Tapwire: the two quick-start commands, plus bench and demo. Each installs what it needs.
SWIFT ?= swift
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: run test bench demo build release deps sql-plan clean fuzz fuzz-build schemathesis soak soak-short

deps: sql-plan
	@scripts/install-deps.sh

# SwiftPM re-plans (and re-embeds sql/) when Package.swift changes; a new .sql file alone does not.
# Each generated EmbeddedSQL.swift lists the files it embeds: a .sql file in none of them is new.
sql-plan:
	@embedded=" $$(cat .build/plugins/outputs/*/*/destination/EmbedSQL/EmbeddedSQL.swift 2>/dev/null | grep '^// Embedded: ' | tr '\n' ' ') "; \
	case "$$embedded" in *sql/*) \
	  for f in $$(find sql -name '*.sql'); do \
	    case "$$embedded" in *" $$f "*) ;; *) echo "sql-plan: $$f is new to the build: touching Package.swift"; touch Package.swift; break;; esac; \
	  done;; \
	esac

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## make run: the collector on 127.0.0.1:8080 with a private PostgreSQL under .tapwire/
## (or TAPWIRE_DATABASE_URL when set). Prints the demo app's keys and a curl to try.
run: release
	.build/release/tapwire serve --quickstart

## make test: the SDK's Apple adapter type-checked for iOS, macOS, watchOS, tvOS and visionOS (about
## 35 s), the whole suite against a throwaway PostgreSQL (and CitusTests against a three-node Citus
## cluster it starts), stopped whatever the outcome, then the body
## decoder's fuzzers (30 s each), schemathesis against a live collector (60 s a pass) and the short
## soak (60 s).
test: deps
	@scripts/install-deps.sh chromium python3-jsonschema pgbouncer
	@# Citus for CitusTests: installed, or built once from TAPWIRE_CITUS_SOURCE; where it cannot
	@# be had (exit 3) the tests say so and are skipped, except under CI=true, where this fails.
	@scripts/install-citus.sh || [ $$? -eq 3 ]
	scripts/test-prometheus-rules.sh
	Tests/AppleAdapterCheck/check.sh
	$(SWIFT) build --build-tests
	TAPWIRE_BINARY=$(CURDIR)/.build/debug/tapwire scripts/with-postgres.sh scripts/test-targets.sh
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=30
	$(MAKE) --no-print-directory schemathesis SCHEMATHESIS_SECONDS=60
	$(MAKE) --no-print-directory soak-short

## make schemathesis: the API document's conformance and no-5xx checks against a live collector.
SCHEMATHESIS_SECONDS ?= 120
schemathesis: deps
	$(SWIFT) build --product tapwire
	SCHEMATHESIS_SECONDS=$(SCHEMATHESIS_SECONDS) scripts/with-postgres.sh scripts/schemathesis.sh

## make fuzz: libFuzzer (coverage-guided) and the seeded mutator on the body decoder,
## FUZZ_SECONDS each (default 60). Findings go to .build/fuzz-findings/ (see Tests/Fuzz/README.md).
FUZZ_SECONDS ?= 60
fuzz: deps fuzz-build
	scripts/fuzz.sh $(FUZZ_SECONDS)

fuzz-build:
	$(SWIFT) build --product tapwire-fuzz
	TAPWIRE_LIBFUZZER=1 $(SWIFT) build --product tapwire-fuzz --scratch-path .build/libfuzzer

## make bench: ingestion end to end vs plain COPY, and the report, mismatch and regression benchmarks, by
## tapwire-bench; ingestion and the report on the benchmark and the real shape (docs/benchmarks.md).
## REPORT_BENCH_EVENTS (10M) events per shape; the rebuild is stopped after REPORT_BENCH_REBUILD_LIMIT (900) s.
bench: release
	TAPWIRE_PG_DURABLE=1 TAPWIRE_PG_SETTINGS="-c shared_preload_libraries=pg_stat_statements" scripts/with-postgres.sh scripts/bench.sh

## make demo: simulated devices post ~200k events through the HTTP API; prints the report, writes report.html.
demo: release
	scripts/demo.sh

clean:
	rm -rf .build

## make soak: the collector and SOAK_CLIENTS SDK client processes at 70% of the peak `tapwire-bench ingest`
## measures (run first, on the soak's own PostgreSQL), for SOAK_SECONDS, with PostgreSQL crashed and
## restarted, the collector and clients kill -9'd, a slow database, paused writer backends and a
## client queue filled past its cap; then every recorded id is checked against the database.
SOAK_SECONDS ?= 300
SOAK_CLIENTS ?= 4
soak: release
	.build/release/tapwire-soak --seconds $(SOAK_SECONDS) --clients $(SOAK_CLIENTS)

## The short soak of make test (debug build, a fixed modest rate, about 80 seconds).
soak-short:
	$(SWIFT) build --product tapwire-soak
	$(SWIFT) build --product tapwire-client-harness
	$(SWIFT) build --product tapwire
	.build/debug/tapwire-soak --seconds 60 --clients 2 --rate 1500 --client-kills 2
