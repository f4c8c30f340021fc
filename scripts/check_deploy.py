#!/usr/bin/env python3
"""Checks the docker compose deployment without a Docker engine.

Run through scripts/check-deploy.sh, which provides docker-compose 1.29.2 (PyPI) in a venv.
Every problem is printed as `check-deploy: FAIL <what> (<where>)`; the exit status is 1 when
there is any. What is checked:

- `docker-compose config` accepts the file (with .env.example, with and without the `scale`
  profile) and refuses it when the secrets are missing;
- every file or directory a service mounts exists, named volumes are declared;
- the collector services agree with the collector's configuration: known TAPWIRE_* settings
  only, listening on all interfaces, published/health-checked/scraped/balanced on TAPWIRE_PORT,
  a database URL that matches the postgres service;
- Prometheus scrapes every collector as job `tapwire` and loads the alert rules it mounts;
- HAProxy balances over every collector service on the collector port and checks /readyz;
- Grafana's provisioning only uses variables its service sets, points at the postgres and
  prometheus services, and loads the dashboard directory it mounts;
- the Dockerfile builds on an official Swift 6 image and installs packages only through
  scripts/install-deps.sh (as `make` does), exposes and health-checks the collector port.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import urllib.parse

import yaml

HEALTH_PATHS = ("/healthz", "/readyz")
ALL_INTERFACES = ("0.0.0.0", "::")


class Checker:
    def __init__(self, root, compose, tapwire):
        self.root = os.path.abspath(root)
        self.compose = compose
        self.tapwire = tapwire
        self.problems = []
        self.passed = 0

    # -- reporting ---------------------------------------------------------------------------
    def check(self, ok, message):
        if ok:
            self.passed += 1
        else:
            self.problems.append(message)
        return ok

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def rel(self, path):
        return os.path.relpath(path, self.root)

    # -- docker-compose config ---------------------------------------------------------------
    def compose_config(self, env_file, profiles=()):
        args = [self.compose, "--project-directory", self.root, "-f", self.path("docker-compose.yml"),
                "--env-file", env_file]
        for profile in profiles:
            args += ["--profile", profile]
        args.append("config")
        # A clean environment: the file must resolve from the env file alone.
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp")}
        return subprocess.run(args, capture_output=True, text=True, env=env)

    def load_config(self):
        example = self.path(".env.example")
        if not self.check(os.path.isfile(example), ".env.example is missing"):
            return None
        plain = self.compose_config(example)
        self.check(plain.returncode == 0, "docker-compose config failed: " + plain.stderr.strip())
        scaled = self.compose_config(example, ["scale"])
        if not self.check(scaled.returncode == 0, "docker-compose --profile scale config failed: " + scaled.stderr.strip()):
            return None
        empty = os.path.join(os.environ.get("TMPDIR", "/tmp"), "check-deploy-empty.env")
        with open(empty, "w") as handle:
            handle.write("# no secrets\n")
        unset = self.compose_config(empty)
        self.check(unset.returncode != 0 and "POSTGRES_PASSWORD" in unset.stderr,
                   "docker-compose config accepts a missing POSTGRES_PASSWORD: secrets must come from .env")
        config = yaml.safe_load(scaled.stdout)
        base = set(yaml.safe_load(plain.stdout)["services"]) if plain.returncode == 0 else set()
        return config, base

    # -- the collector's own settings --------------------------------------------------------
    def known_settings(self):
        names = set()
        if self.tapwire:
            out = subprocess.run([self.tapwire, "serve", "--help"], capture_output=True, text=True)
            names |= set(re.findall(r"\bTAPWIRE_[A-Z0-9_]+\b", out.stdout))
            default_port = re.search(r"TAPWIRE_PORT \(default (\d+)\)", out.stdout)
        else:
            text = open(self.path("Sources/tapwire/Settings.swift")).read()
            names |= set(re.findall(r'environment: "(TAPWIRE_[A-Z0-9_]+)"', text))
            default_port = re.search(r'environment: "TAPWIRE_PORT", defaultText: "(\d+)"', text)
        self.check(len(names) >= 5, "could not read the collector's settings")
        # Read by the binary outside `serve` settings (README: "Other variables"), and by the entrypoint.
        names |= {"TAPWIRE_DATA_DIR", "TAPWIRE_PG_PORT"}
        entrypoint = self.path("deploy/docker-entrypoint.sh")
        if os.path.isfile(entrypoint):
            names |= set(re.findall(r"\bTAPWIRE_[A-Z0-9_]+\b", open(entrypoint).read()))
        return names, int(default_port.group(1)) if default_port else 8080

    # -- helpers over the resolved config ----------------------------------------------------
    @staticmethod
    def environment(service):
        env = service.get("environment") or {}
        if isinstance(env, list):
            env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
        return {k: ("" if v is None else str(v)) for k, v in env.items()}

    @staticmethod
    def mounts(service):
        """(source, target) of each volume entry; source None for anonymous volumes."""
        out = []
        for volume in service.get("volumes") or []:
            if isinstance(volume, dict):
                out.append((volume.get("source"), volume.get("target"), volume.get("type")))
                continue
            parts = volume.split(":")
            if len(parts) == 1:
                out.append((None, parts[0], "volume"))
            else:
                kind = "bind" if parts[0].startswith(("/", ".", "~")) else "volume"
                out.append((parts[0], parts[1], kind))
        return out

    def mounted_source(self, service, target):
        for source, mount_target, kind in self.mounts(service):
            if kind == "bind" and (target == mount_target or target.startswith(mount_target.rstrip("/") + "/")):
                return source + target[len(mount_target):]
        return None

    @staticmethod
    def container_ports(service):
        ports = []
        for port in service.get("ports") or []:
            if isinstance(port, dict):
                ports.append(int(port["target"]))
            else:
                spec = str(port).split("/")[0]
                ports.append(int(spec.rsplit(":", 1)[-1]))
        return ports

    @staticmethod
    def healthcheck_urls(service):
        test = (service.get("healthcheck") or {}).get("test") or []
        text = " ".join(test) if isinstance(test, list) else str(test)
        return [urllib.parse.urlsplit(u) for u in re.findall(r"https?://[^\s\"']+", text)]

    # -- the checks --------------------------------------------------------------------------
    def run(self):
        loaded = self.load_config()
        if loaded is None:
            return
        config, base_services = loaded
        services = config.get("services", {})
        self.check_mounts(config)
        settings, default_port = self.known_settings()
        collectors = {name: s for name, s in services.items() if s.get("build") is not None or str(s.get("image", "")).startswith("tapwire")}
        if not self.check(bool(collectors), "no collector service (built from the Dockerfile) in docker-compose.yml"):
            return
        self.check(any(name in base_services for name in collectors), "no collector runs without a profile")
        port = None
        for name, service in collectors.items():
            port = self.check_collector(name, service, services, settings, default_port)
        self.check_prometheus(services, collectors, port)
        self.check_haproxy(services, collectors, port)
        self.check_grafana(services)
        self.check_postgres_init(services)
        self.check_dockerfile(port)
        self.check_makefile()
        self.check_ignores()

    def check_mounts(self, config):
        declared = set((config.get("volumes") or {}).keys())
        for name, service in config.get("services", {}).items():
            for source, target, kind in self.mounts(service):
                if kind == "bind":
                    self.check(os.path.exists(source), f"service {name} mounts {self.rel(source)}, which does not exist")
                    inside = os.path.abspath(source).startswith(self.root + os.sep)
                    self.check(inside, f"service {name} mounts {source}, outside the repository")
                elif source is not None:
                    self.check(source in declared, f"service {name} uses volume {source}, not declared under volumes:")
            build = service.get("build")
            if build is not None:
                context = build if isinstance(build, str) else build.get("context", ".")
                dockerfile = (build.get("dockerfile") if isinstance(build, dict) else None) or "Dockerfile"
                self.check(os.path.isfile(os.path.join(context, dockerfile)), f"service {name} builds from a missing {dockerfile}")

    def check_collector(self, name, service, services, settings, default_port):
        env = self.environment(service)
        for key in env:
            if key.startswith("TAPWIRE_"):
                self.check(key in settings, f"service {name} sets {key}, which the collector does not read (`tapwire serve --help`)")
        host = env.get("TAPWIRE_HOST")
        self.check(host in ALL_INTERFACES, f"service {name}: TAPWIRE_HOST must be 0.0.0.0 or :: inside a container, is {host!r}")
        text = env.get("TAPWIRE_PORT", str(default_port))
        if not self.check(text.isdigit(), f"service {name}: TAPWIRE_PORT {text!r} is not a port"):
            return default_port
        port = int(text)
        for published in self.container_ports(service):
            self.check(published == port, f"service {name} publishes container port {published}, the collector listens on {port}")
        urls = self.healthcheck_urls(service)
        self.check(bool(urls), f"service {name} has no HTTP health check")
        for url in urls:
            self.check(url.hostname in ("127.0.0.1", "localhost", "::1") and url.port == port and url.path in HEALTH_PATHS,
                       f"service {name}: health check {url.geturl()} is not the collector's 127.0.0.1:{port}/healthz or /readyz")
        self.check_database_url(name, service, env, services)
        return port

    def check_database_url(self, name, service, env, services):
        url = env.get("TAPWIRE_DATABASE_URL", "")
        if not self.check(url.startswith(("postgres://", "postgresql://")), f"service {name}: TAPWIRE_DATABASE_URL is not a PostgreSQL URL"):
            return
        parts = urllib.parse.urlsplit(url)
        db_service = services.get(parts.hostname)
        if not self.check(db_service is not None, f"service {name}: TAPWIRE_DATABASE_URL names host {parts.hostname}, not a service"):
            return
        db_env = self.environment(db_service)
        self.check((parts.port or 5432) == int(db_env.get("PGPORT", "5432")), f"service {name}: database port {parts.port} is not the postgres service's")
        self.check(parts.path.lstrip("/") == db_env.get("POSTGRES_DB", db_env.get("POSTGRES_USER")),
                   f"service {name}: database {parts.path.lstrip('/')} is not POSTGRES_DB of service {parts.hostname}")
        self.check(urllib.parse.unquote(parts.username or "") == db_env.get("POSTGRES_USER", "postgres"),
                   f"service {name}: database user is not POSTGRES_USER of service {parts.hostname}")
        self.check(urllib.parse.unquote(parts.password or "") == db_env.get("POSTGRES_PASSWORD"),
                   f"service {name}: database password is not POSTGRES_PASSWORD of service {parts.hostname}")
        depends = service.get("depends_on") or {}
        condition = depends.get(parts.hostname, {}).get("condition") if isinstance(depends, dict) else None
        self.check(condition == "service_healthy", f"service {name} must wait for {parts.hostname} to be healthy (depends_on condition)")
        self.check(bool((db_service.get("healthcheck") or {}).get("test")), f"service {parts.hostname} has no health check")

    def service_with_image(self, services, prefix):
        for name, service in services.items():
            if str(service.get("image", "")).split("/")[-1].startswith(prefix) or str(service.get("image", "")).startswith(prefix):
                return name, service
        return None, None

    def check_prometheus(self, services, collectors, port):
        name, service = self.service_with_image(services, "prom/prometheus")
        if not self.check(service is not None, "no prometheus service (image prom/prometheus)"):
            return
        command = service.get("command") or []
        command = shlex.split(command) if isinstance(command, str) else command
        target = next((c.split("=", 1)[1] for c in command if c.startswith("--config.file=")), "/etc/prometheus/prometheus.yml")
        source = self.mounted_source(service, target)
        if not self.check(source is not None and os.path.isfile(source), f"service {name}: its config {target} is not a mounted file"):
            return
        config = yaml.safe_load(open(source))
        for rule_file in config.get("rule_files") or []:
            in_container = rule_file if rule_file.startswith("/") else os.path.join(os.path.dirname(target), rule_file)
            mounted = self.mounted_source(service, in_container)
            self.check(mounted is not None and os.path.isfile(mounted),
                       f"prometheus rule file {rule_file} ({in_container}) is not mounted from an existing file")
            if mounted and os.path.isfile(mounted):
                jobs = {job["job_name"] for job in config.get("scrape_configs") or []}
                for job in set(re.findall(r'job="([^"]+)"', open(mounted).read())):
                    self.check(job in jobs, f"alert rules in {self.rel(mounted)} select job {job!r}, which prometheus does not scrape")
        job = next((j for j in config.get("scrape_configs") or [] if j.get("job_name") == "tapwire"), None)
        if not self.check(job is not None, "prometheus has no scrape job `tapwire` (the alert rules select on it)"):
            return
        self.check(job.get("metrics_path", "/metrics") == "/metrics", "prometheus job tapwire must scrape /metrics")
        scraped = set()
        for static in job.get("static_configs") or []:
            for item in static.get("targets") or []:
                host, _, target_port = item.rpartition(":")
                scraped.add(host)
                self.check(target_port == str(port), f"prometheus scrapes {item}; the collector listens on {port}")
        for sd in job.get("dns_sd_configs") or []:
            scraped |= set(sd.get("names") or [])
            self.check(sd.get("port") == port, f"prometheus DNS discovery uses port {sd.get('port')}; the collector listens on {port}")
        for collector in collectors:
            self.check(collector in scraped, f"prometheus does not scrape collector service {collector}")
        for host in scraped:
            self.check(host in collectors, f"prometheus job tapwire scrapes {host}, which is not a collector service")
        self.run_tool(["promtool", "check", "config", source], "promtool check config")

    def check_haproxy(self, services, collectors, port):
        name, service = self.service_with_image(services, "haproxy")
        if service is None:
            return
        source = self.mounted_source(service, "/usr/local/etc/haproxy/haproxy.cfg")
        if not self.check(source is not None and os.path.isfile(source), f"service {name} does not mount its haproxy.cfg"):
            return
        text = open(source).read()
        balanced = set()
        for kind, address in re.findall(r"^\s*(server-template\s+\S+\s+\d+|server\s+\S+)\s+(\S+)", text, re.M):
            host, _, server_port = address.rpartition(":")
            balanced.add(host)
            self.check(server_port == str(port), f"haproxy sends to {address}; the collector listens on {port}")
        for collector in collectors:
            self.check(collector in balanced, f"haproxy does not balance over collector service {collector}")
        check_path = re.search(r"http-check send meth GET uri (\S+)|option httpchk GET (\S+)", text)
        path = check_path and (check_path.group(1) or check_path.group(2))
        self.check(path in HEALTH_PATHS, f"haproxy health check path {path!r} is not /readyz or /healthz")
        binds = [int(p) for p in re.findall(r"^\s*bind\s+\S*:(\d+)", text, re.M)]
        for published in self.container_ports(service):
            self.check(published in binds, f"service {name} publishes port {published}, haproxy binds {binds}")
        self.run_tool(["haproxy", "-c", "-f", source], "haproxy -c")

    def check_grafana(self, services):
        name, service = self.service_with_image(services, "grafana/")
        if not self.check(service is not None, "no grafana service"):
            return
        env = self.environment(service)
        datasources_dir = self.mounted_source(service, "/etc/grafana/provisioning/datasources")
        dashboards_dir = self.mounted_source(service, "/etc/grafana/provisioning/dashboards")
        if not self.check(datasources_dir and os.path.isdir(datasources_dir) and dashboards_dir and os.path.isdir(dashboards_dir),
                          f"service {name} does not mount provisioning/datasources and provisioning/dashboards directories"):
            return
        uids = set()
        for path in self.yaml_files(datasources_dir) + self.yaml_files(dashboards_dir):
            text = open(path).read()
            for var in set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", text)):
                self.check(var in env, f"{self.rel(path)} uses ${var}, which service {name} does not set")
            expanded = re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: env.get(m.group(1), ""), text)
            document = yaml.safe_load(expanded) or {}
            for source in document.get("datasources") or []:
                uids.add(source.get("uid"))
                self.check_datasource(source, services)
            for provider in document.get("providers") or []:
                folder = (provider.get("options") or {}).get("path", "")
                mounted = self.mounted_source(service, folder)
                ok = mounted is not None and os.path.isdir(mounted) and any(f.endswith(".json") for f in os.listdir(mounted))
                if self.check(ok, f"dashboard provider path {folder} is not a mounted directory of dashboard JSON"):
                    for file in sorted(os.listdir(mounted)):
                        if file.endswith(".json"):
                            self.check_dashboard_datasources(os.path.join(mounted, file), uids)
        home = env.get("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH")
        if home:
            mounted = self.mounted_source(service, home)
            self.check(mounted is not None and os.path.isfile(mounted), f"grafana home dashboard {home} is not a mounted file")

    def yaml_files(self, folder):
        return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith((".yml", ".yaml")))

    def check_datasource(self, source, services):
        kind = source.get("type")
        if kind in ("postgres", "grafana-postgresql-datasource"):
            host, _, db_port = str(source.get("url", "")).rpartition(":")
            db = services.get(host)
            if self.check(db is not None, f"grafana data source {source.get('name')} points at {source.get('url')}, not a service"):
                db_env = self.environment(db)
                self.check(db_port == db_env.get("PGPORT", "5432"), f"grafana data source port {db_port} is not the database's")
                database = (source.get("jsonData") or {}).get("database") or source.get("database")
                self.check(database == db_env.get("POSTGRES_DB"), f"grafana reads database {database!r}, the collectors write {db_env.get('POSTGRES_DB')!r}")
                self.check(source.get("user") and source.get("user") == db_env.get("GRAFANA_DB_USER"),
                           "grafana's database user is not the read-only role the postgres service creates (GRAFANA_DB_USER)")
        elif kind == "prometheus":
            url = urllib.parse.urlsplit(str(source.get("url", "")))
            prom = services.get(url.hostname)
            self.check(prom is not None and url.port == 9090, f"grafana's prometheus data source {url.geturl()} is not the prometheus service on 9090")

    def check_dashboard_datasources(self, path, uids):
        try:
            dashboard = json.load(open(path))
        except ValueError as error:
            self.check(False, f"{self.rel(path)} is not JSON: {error}")
            return
        def walk(node):
            if isinstance(node, dict):
                source = node.get("datasource")
                if isinstance(source, dict) and "uid" in source and not str(source["uid"]).startswith(("$", "-- ")):
                    self.check(source["uid"] in uids, f"{self.rel(path)} uses data source uid {source['uid']!r}, which is not provisioned")
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)
        walk(dashboard)

    def check_postgres_init(self, services):
        for name, service in services.items():
            env = self.environment(service)
            for source, target, kind in self.mounts(service):
                if kind == "bind" and target.startswith("/docker-entrypoint-initdb.d/") and os.path.isfile(source):
                    for var in set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*):\?\}", open(source).read())):
                        self.check(var in env, f"{self.rel(source)} needs {var}, which service {name} does not set")

    # -- Dockerfile and make -----------------------------------------------------------------
    def dockerfile_instructions(self):
        lines, current = [], ""
        for raw in open(self.path("Dockerfile")):
            line = raw.rstrip("\n")
            if not current and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if line.endswith("\\"):
                current += line[:-1] + " "
                continue
            current += line
            instruction, _, rest = current.strip().partition(" ")
            lines.append((instruction.upper(), rest.strip()))
            current = ""
        return lines

    def check_dockerfile(self, port):
        if not self.check(os.path.isfile(self.path("Dockerfile")), "Dockerfile is missing"):
            return
        instructions = self.dockerfile_instructions()
        args = {}
        stages = []
        env = {}
        for instruction, rest in instructions:
            if instruction == "ARG" and "=" in rest:
                key, value = rest.split("=", 1)
                args[key] = value
            elif instruction == "FROM":
                image = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), ""), rest.split()[0])
                stages.append({"image": image, "runs": []})
            elif instruction == "RUN" and stages:
                stages[-1]["runs"].append(rest)
            elif instruction == "ENV":
                for key, value in re.findall(r"(\w+)=(\S+)", rest):
                    env[key] = value
            elif instruction == "COPY" and "--from=" not in rest:
                for source in shlex.split(rest)[:-1]:
                    if not source.startswith("--") and source != ".":
                        self.check(os.path.exists(self.path(source)), f"Dockerfile copies {source}, which does not exist")
        if not self.check(len(stages) >= 1, "Dockerfile has no FROM"):
            return
        self.check(re.fullmatch(r"swift:6(\.\d+)*(-[a-z0-9.-]+)?", stages[0]["image"]) is not None,
                   f"Dockerfile must build on an official Swift 6 image, builds on {stages[0]['image']}")
        for index, stage in enumerate(stages):
            runs = " && ".join(stage["runs"])
            self.check(re.search(r"\bapt(-get)?\s+install\b", runs) is None,
                       f"Dockerfile stage {index + 1} installs packages itself; use scripts/install-deps.sh so it matches `make`")
            self.check("install-deps.sh" in runs, f"Dockerfile stage {index + 1} does not run scripts/install-deps.sh")
        build_runs = " ".join(stages[0]["runs"])
        self.check("install-deps.sh build" in build_runs, "Dockerfile build stage must run `scripts/install-deps.sh build`")
        self.check(re.search(r"swift build\b.*-c release", build_runs) is not None, "Dockerfile does not run `swift build -c release`")
        if len(stages) > 1:
            self.check("install-deps.sh runtime" in " ".join(stages[-1]["runs"]), "Dockerfile final stage must run `install-deps.sh runtime`")
        self.check(env.get("TAPWIRE_HOST") in ALL_INTERFACES, "Dockerfile must set TAPWIRE_HOST=0.0.0.0 (the collector's default is 127.0.0.1)")
        self.check(env.get("TAPWIRE_PORT") == str(port), f"Dockerfile sets TAPWIRE_PORT={env.get('TAPWIRE_PORT')}, compose uses {port}")
        exposed = [rest for instruction, rest in instructions if instruction == "EXPOSE"]
        self.check(exposed == [str(port)], f"Dockerfile exposes {exposed}, the collector listens on {port}")
        health = " ".join(rest for instruction, rest in instructions if instruction == "HEALTHCHECK")
        url = re.search(r"http://127\.0\.0\.1:(\$\{TAPWIRE_PORT\}|\d+)(/\w+)", health)
        self.check(url is not None and url.group(1) in ("${TAPWIRE_PORT}", str(port)) and url.group(2) in HEALTH_PATHS,
                   "Dockerfile HEALTHCHECK must probe http://127.0.0.1:${TAPWIRE_PORT}/healthz (or /readyz)")
        entry = [rest for instruction, rest in instructions if instruction == "ENTRYPOINT"]
        script = None
        for instruction, rest in instructions:
            if instruction == "COPY" and entry and json.loads(entry[-1])[0] in rest:
                script = shlex.split(rest)[-2]
        self.check(script is not None and "tapwire migrate" in open(self.path(script)).read(),
                   "the image's entrypoint must run `tapwire migrate` before serving")
        self.check(script is not None and os.access(self.path(script), os.X_OK), f"{script} must be executable")

    def check_makefile(self):
        text = open(self.path("Makefile")).read()
        deps = re.search(r"^deps:.*\n((?:\t.*\n)+)", text, re.M)
        self.check(deps is not None and "scripts/install-deps.sh" in deps.group(1), "Makefile `deps` must run scripts/install-deps.sh")
        for target in ("run", "test"):
            line = re.search(rf"^{target}:(.*)$", text, re.M)
            chain = line.group(1) if line else ""
            self.check("deps" in chain or "release" in chain or "build" in chain, f"Makefile `{target}` does not go through `deps`")

    def check_ignores(self):
        for name in (".gitignore", ".dockerignore"):
            path = self.path(name)
            lines = open(path).read().split() if os.path.isfile(path) else []
            self.check(".env" in lines, f"{name} must list .env (secrets)")

    def run_tool(self, command, label):
        from shutil import which
        if which(command[0]) is None:
            print(f"check-deploy: skipped {label} ({command[0]} is not installed)")
            return
        result = subprocess.run(command, capture_output=True, text=True, cwd=self.root)
        self.check(result.returncode == 0, f"{label} failed: {(result.stdout + result.stderr).strip()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--compose", default="docker-compose")
    parser.add_argument("--tapwire", help="the built tapwire binary, to read its settings from `serve --help`")
    options = parser.parse_args()
    checker = Checker(options.root, options.compose, options.tapwire)
    checker.run()
    for problem in checker.problems:
        print(f"check-deploy: FAIL {problem}")
    print(f"check-deploy: {checker.passed} passed, {len(checker.problems)} failed")
    sys.exit(1 if checker.problems else 0)


if __name__ == "__main__":
    main()
