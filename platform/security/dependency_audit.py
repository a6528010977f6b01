"""Audit the locked dependencies for known vulnerabilities (``make audit``; ``.ci/run`` runs it).

    python platform/security/dependency_audit.py [--strict] requirements.lock requirements-dev.lock

Runs pip-audit over the hashed lock files exactly as pinned (``--disable-pip --require-hashes``: no
resolution, nothing installed) and reads its JSON report:

- any known vulnerability fails the audit (exit 1), whatever else happened;
- packages pip-audit could not check (the vulnerability service does not know the release, or cannot
  be reached at all) are reported loudly, with the count and pip-audit's own reason; they fail the
  audit (exit 2) only with ``--strict`` (or ``AUDIT_STRICT=1``), since a machine without access to the
  service can then prove nothing either way;
- pip-audit failing for any other reason (a malformed lock file, say) fails the audit (exit 2).

"No known vulnerabilities" is printed only when every locked package was checked. Standard library
only: it runs before, and independently of, Django.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

OK, VULNERABLE, INCOMPLETE = 0, 1, 2

# pip-audit's words when the vulnerability service cannot be reached or used at all (its own hint, its
# ServiceError for an HTTP error other than 404, or requests').
UNREACHABLE_MARKERS = ("network may be blocking", "Could not connect", "ConnectionError", "NameResolutionError",
                       "Max retries exceeded", "Failed to resolve", "timed out", "ServiceError", "HTTPError")


@dataclass
class Verdict:
    code: int
    lines: list[str] = field(default_factory=list)


def banner(title: str, body: list[str]) -> list[str]:
    rule = "!" * 78
    return [rule, f"!! {title}", *(f"!! {line}" for line in body), rule]


def judge(report: dict, strict: bool = False) -> Verdict:
    """The verdict on one pip-audit JSON report (``{"dependencies": [{name, version, vulns} | {name, skip_reason}]}``)."""
    deps = report.get("dependencies", [])
    skipped = [d for d in deps if d.get("skip_reason")]
    audited = [d for d in deps if not d.get("skip_reason")]
    vulnerable = [d for d in audited if d.get("vulns")]
    lines: list[str] = []
    if vulnerable:
        body = []
        for dep in vulnerable:
            for vuln in dep["vulns"]:
                fixes = ", ".join(vuln.get("fix_versions") or []) or "no fixed release yet"
                aliases = ", ".join(vuln.get("aliases") or [])
                body.append(f"{dep['name']} {dep.get('version', '?')}: {vuln.get('id', '?')}"
                            + (f" ({aliases})" if aliases else "") + f"; fixed in: {fixes}")
        body.append("Upgrade within pyproject.toml's range: make lock LOCK_ARGS=\"--upgrade-package NAME\".")
        lines += banner(f"DEPENDENCY AUDIT FAILED: {sum(len(d['vulns']) for d in vulnerable)} known "
                        f"vulnerabilities in {len(vulnerable)} locked packages", body)
    if skipped:
        reasons: dict[str, int] = {}
        for dep in skipped:
            reason = dep["skip_reason"].split(":")[0]
            reasons[reason] = reasons.get(reason, 0) + 1
        first = skipped[0]["skip_reason"]
        lines += banner(
            f"DEPENDENCY AUDIT INCOMPLETE: {len(skipped)} of {len(deps)} locked packages could NOT be checked",
            [f"{count} x {reason}" for reason, count in reasons.items()]
            + [f"e.g. {first}",
               "These packages were not audited; nothing is known about their vulnerabilities.",
               "strict: this fails the audit" if strict else "not failing the build for it (AUDIT_STRICT=1 would)"],
        )
    if vulnerable:
        return Verdict(VULNERABLE, lines)
    if skipped:
        return Verdict(INCOMPLETE if strict else OK, lines)
    return Verdict(OK, [f"dependency audit: no known vulnerabilities in the {len(deps)} locked packages"])


def run(lock_files: list[str], strict: bool = False, pip_audit: list[str] | None = None,
        extra: list[str] | None = None) -> Verdict:
    command = pip_audit or [sys.executable, "-m", "pip_audit"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "pip-audit.json"
        args = [*command]
        for lock in lock_files:
            args += ["--requirement", lock]
        args += ["--require-hashes", "--disable-pip", "--progress-spinner", "off", "--format", "json",
                 "--output", str(out), *(extra or [])]
        proc = subprocess.run(args, capture_output=True, text=True)
        try:
            report = json.loads(out.read_text())
        except (OSError, ValueError):
            report = None
    if report is not None:
        return judge(report, strict)
    output = (proc.stderr or proc.stdout or "").strip().splitlines()
    tail = output[-6:] or [f"(no output; exit status {proc.returncode})"]
    if any(marker in line for line in output for marker in UNREACHABLE_MARKERS):
        return Verdict(INCOMPLETE if strict else OK, banner(
            "DEPENDENCY AUDIT DID NOT RUN: pip-audit could not reach its vulnerability service",
            [*tail, "No package was audited; nothing is known about their vulnerabilities.",
             "strict: this fails the audit" if strict else "not failing the build for it (AUDIT_STRICT=1 would)"]))
    return Verdict(INCOMPLETE, banner(f"DEPENDENCY AUDIT ERROR: pip-audit exited {proc.returncode} without a report",
                                      tail))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lock_files", nargs="+")
    parser.add_argument("--strict", action="store_true", default=os.environ.get("AUDIT_STRICT", "") in ("1", "true"),
                        help="also fail when some packages could not be checked (default: $AUDIT_STRICT)")
    parser.add_argument("--pip-audit", help="the pip-audit command (default: this Python's pip_audit module)")
    parser.add_argument("--ignore-vuln", action="append", default=[], metavar="ID",
                        help="a vulnerability to accept (repeatable); say why beside the command that passes it")
    args = parser.parse_args(argv)
    extra = [opt for vuln in args.ignore_vuln for opt in ("--ignore-vuln", vuln)]
    verdict = run(args.lock_files, strict=args.strict, pip_audit=args.pip_audit.split() if args.pip_audit else None,
                  extra=extra)
    stream = sys.stdout if verdict.code == OK and len(verdict.lines) == 1 else sys.stderr
    print("\n".join(verdict.lines), file=stream, flush=True)
    return verdict.code


if __name__ == "__main__":
    sys.exit(main())
