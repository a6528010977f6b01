"""The hashed lock files, how they are installed, and the dependency audit that CI runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from security import dependency_audit as audit

ROOT = Path(__file__).resolve().parents[3]


def _name(raw: str) -> str:
    return re.sub(r"[-_.]+", "-", raw).lower()


def parse_lock(path: Path) -> dict[str, tuple[str, frozenset[str]]]:
    """{name: (version, sha256 hashes)}; every requirement must be pinned with == and hashed."""
    pins: dict[str, tuple[str, frozenset[str]]] = {}
    for entry in path.read_text().replace("\\\n", " ").splitlines():
        entry = entry.split("#", 1)[0].strip()
        if not entry:
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})+)", entry)
        assert match, f"{path.name}: not pinned with hashes: {entry[:80]}"
        pins[_name(match[1])] = (match[2], frozenset(re.findall(r"sha256:([0-9a-f]{64})", match[3])))
    return pins


RUNTIME = parse_lock(ROOT / "requirements.lock")
DEV = parse_lock(ROOT / "requirements-dev.lock")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _requirement_name(spec: str) -> str:
    return _name(re.match(r"[A-Za-z0-9._-]+", spec)[0])


def test_the_runtime_lock_holds_every_runtime_dependency_and_no_dev_tool():
    for spec in PROJECT["dependencies"]:
        assert _requirement_name(spec) in RUNTIME, spec
    for tool in ("pytest", "ruff", "playwright", "pip-audit", "pip-tools", "hypothesis", "schemathesis"):
        assert tool not in RUNTIME, tool
    assert "drf-spectacular-sidecar" in RUNTIME


def test_the_dev_lock_adds_the_tools_and_agrees_with_the_runtime_pins():
    for spec in PROJECT["optional-dependencies"]["dev"]:
        assert _requirement_name(spec) in DEV, spec
    assert "pip-audit" in DEV and "pip-tools" in DEV
    differing = {name: (RUNTIME[name][0], DEV.get(name, ("missing",))[0]) for name in RUNTIME
                 if DEV.get(name) != RUNTIME[name]}
    assert not differing, f"requirements-dev.lock disagrees with requirements.lock: {differing}"


def test_make_install_requires_the_hashes_and_make_lock_generates_them():
    makefile = (ROOT / "Makefile").read_text()
    install = re.search(r"^\$\(STAMP\):(.*?)\n\n", makefile, re.M | re.S)[0]
    assert "requirements.lock" in install.splitlines()[0] and "requirements-dev.lock" in install.splitlines()[0]
    assert re.search(r"pip install .*--require-hashes.* -r requirements\.lock -r requirements-dev\.lock", install)
    assert "--only-binary :all:" in install  # no sdist builds, whose build dependencies pip would not hash-check
    assert "--upgrade pip" not in install  # pip itself comes from the lock, hashed
    assert "pip" in DEV and "setuptools" in RUNTIME  # --allow-unsafe: pinned too
    lock = re.search(r"^lock:.*?\n\n", makefile, re.M | re.S)[0]
    assert lock.count("$(PIP_COMPILE)") == 2 and "--generate-hashes" in makefile
    assert "--constraint requirements.lock --output-file requirements-dev.lock" in lock


def test_ci_audits_the_locked_dependencies():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make audit" in ci and ci.index("make audit") < ci.index("make test")
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^audit:.*\n\t.*dependency_audit\.py requirements\.lock requirements-dev\.lock", makefile, re.M)


# -- the audit's verdicts --------------------------------------------------------------------------

VULN = {"id": "PYSEC-2099-1", "fix_versions": ["5.2.99"], "aliases": ["CVE-2099-0001"], "description": "x"}


def test_a_known_vulnerability_fails_the_audit():
    verdict = audit.judge({"dependencies": [
        {"name": "django", "version": "5.2.19", "vulns": [VULN]},
        {"name": "six", "version": "1.17.0", "vulns": []},
        {"name": "amqp", "skip_reason": "Dependency not found on PyPI and could not be audited: amqp (5.4.2)"},
    ]})
    text = "\n".join(verdict.lines)
    assert verdict.code == audit.VULNERABLE
    assert "django 5.2.19: PYSEC-2099-1 (CVE-2099-0001); fixed in: 5.2.99" in text
    assert "1 of 3 locked packages could NOT be checked" in text


def test_a_clean_audit_passes_and_says_so():
    verdict = audit.judge({"dependencies": [{"name": "six", "version": "1.17.0", "vulns": []}]})
    assert verdict.code == audit.OK and verdict.lines == [
        "dependency audit: no known vulnerabilities in the 1 locked packages"]


def test_packages_that_could_not_be_checked_are_reported_loudly_never_as_clean():
    report = {"dependencies": [
        {"name": "six", "skip_reason": "Dependency not found on PyPI and could not be audited: six (1.17.0)"}]}
    lenient, strict = audit.judge(report), audit.judge(report, strict=True)
    assert lenient.code == audit.OK and strict.code == audit.INCOMPLETE
    text = "\n".join(lenient.lines)
    assert "DEPENDENCY AUDIT INCOMPLETE: 1 of 1" in text and "no known vulnerabilities" not in text


FAKE_PIP_AUDIT = """
import json, sys
args = sys.argv[1:]
mode = {mode!r}
if mode == "unreachable":
    sys.exit("requests.exceptions.ConnectionError: Max retries exceeded (NameResolutionError)")
if mode == "broken":
    sys.exit("ERROR: invalid requirements input")
assert "--require-hashes" in args and "--disable-pip" in args, args
assert args.count("--requirement") == 2, args
out = args[args.index("--output") + 1]
deps = [{{"name": "django", "version": "5.2.19", "vulns": [{vuln!r}] if mode == "vulnerable" else []}}]
json.dump({{"dependencies": deps, "fixes": []}}, open(out, "w"))
sys.exit(1 if mode == "vulnerable" else 0)
"""


@pytest.mark.parametrize("mode, strict, code, words", [
    ("vulnerable", False, 1, "DEPENDENCY AUDIT FAILED"),
    ("clean", False, 0, "no known vulnerabilities in the 1 locked packages"),
    ("unreachable", False, 0, "DEPENDENCY AUDIT DID NOT RUN"),
    ("unreachable", True, 2, "DEPENDENCY AUDIT DID NOT RUN"),
    ("broken", False, 2, "DEPENDENCY AUDIT ERROR"),
])
def test_the_audit_command(tmp_path, mode, strict, code, words):
    fake = tmp_path / "fake_pip_audit.py"
    fake.write_text(FAKE_PIP_AUDIT.format(mode=mode, vuln=VULN))
    command = [sys.executable, str(ROOT / "platform" / "security" / "dependency_audit.py"),
               "--pip-audit", f"{sys.executable} {fake}", "requirements.lock", "requirements-dev.lock"]
    out = subprocess.run(command + (["--strict"] if strict else []), cwd=ROOT, capture_output=True, text=True,
                         timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert out.returncode == code, out.stdout + out.stderr
    assert words in out.stdout + out.stderr


def test_pip_audit_reads_the_hashed_locks_as_they_are(tmp_path):
    """The real pip-audit accepts both lock files without resolving anything (no network needed for this
    part): --dry-run collects the dependencies and stops before asking the vulnerability service."""
    out = subprocess.run([sys.executable, "-m", "pip_audit", "--require-hashes", "--disable-pip", "--dry-run",
                          "--progress-spinner", "off", "-r", "requirements.lock", "-r", "requirements-dev.lock"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"Dry run: would have audited {len(DEV)} packages" in out.stderr + out.stdout, out.stderr


def test_the_judge_reads_pip_audits_own_json():
    """A report made by pip-audit's own JSON formatter (the format .ci/run reads), with one vulnerability,
    one clean package and one that could not be audited."""
    from packaging.version import Version
    from pip_audit._format.json import JsonFormat
    from pip_audit._service.interface import ResolvedDependency, SkippedDependency, VulnerabilityResult

    result = {
        ResolvedDependency(name="django", version=Version("5.2.19")): [VulnerabilityResult(
            id="PYSEC-2099-1", description="x", fix_versions=[Version("5.2.99")], aliases={"CVE-2099-0001"})],
        ResolvedDependency(name="six", version=Version("1.17.0")): [],
        SkippedDependency(name="amqp", skip_reason="Dependency not found on PyPI and could not be audited"): [],
    }
    report = json.loads(JsonFormat(output_desc=True, output_aliases=True).format(result, []))
    verdict = audit.judge(report)
    text = "\n".join(verdict.lines)
    assert verdict.code == audit.VULNERABLE
    assert "django 5.2.19: PYSEC-2099-1 (CVE-2099-0001); fixed in: 5.2.99" in text and "1 of 3" in text
