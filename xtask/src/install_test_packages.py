"""Installs the Python test packages into the running interpreter's environment, a few at a time.

Run by `cargo xtask test` as `python -c <this file> NEED_GIB PACKAGE...`. One `pip install` of
torch keeps every downloaded wheel (about 3.5 GB with the CUDA libraries) on disk until the last
is installed, so the disk must hold the downloads and the installed files (about 6 GB) at once.
Here pip first resolves the whole set without downloading it (`--dry-run --report`), then each
platform wheel is installed alone and the pure-Python ones together, all with `--no-deps`: at
most one large wheel waits on disk at a time.

Exit status: 0 installed, 1 pip failed, 3 not enough free disk (said why on stderr; nothing more
is downloaded).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

PIP = [sys.executable, "-m", "pip", "install", "--quiet", "--no-cache-dir",
       "--disable-pip-version-check"]
SHORT_OF_DISK = 3


def free_gib(path):
    return shutil.disk_usage(path).free / 2**30


def resolve(packages):
    """The (name==version, url) pairs pip would install, without downloading the wheels."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        subprocess.run(PIP + ["--dry-run", "--ignore-installed", "--report", report]
                       + packages, check=True)
        with open(report) as f:
            items = json.load(f)["install"]
    return [(f"{i['metadata']['name']}=={i['metadata']['version']}",
             i.get("download_info", {}).get("url", "")) for i in items]


def main():
    need_gib = float(sys.argv[1])
    packages = sys.argv[2:]
    site = sys.prefix
    free = free_gib(site)
    if free < need_gib:
        print(f"only {free:.1f} GiB free on the disk of {site}; {' '.join(packages)} "
              f"need about {need_gib:.0f} GiB", file=sys.stderr)
        return SHORT_OF_DISK
    try:
        pinned = resolve(packages)
    except subprocess.CalledProcessError as e:
        print(f"pip could not resolve {' '.join(packages)} ({e})", file=sys.stderr)
        return 1
    pure = [p for p, url in pinned if url.endswith("-none-any.whl")]
    batches = [[p] for p, url in pinned if not url.endswith("-none-any.whl")]
    if pure:
        batches.append(pure)
    for batch in batches:
        # Room for the next wheel and its unpacked files; torch's is the largest, about 2 GiB.
        if free_gib(site) < 2.5:
            print(f"the disk of {site} filled up while installing ({free_gib(site):.1f} GiB "
                  f"free before {batch[0]})", file=sys.stderr)
            return SHORT_OF_DISK
        if subprocess.run(PIP + ["--no-deps"] + batch).returncode != 0:
            if free_gib(site) < 2.5:
                return SHORT_OF_DISK
            return 1
    return 0


sys.exit(main())
