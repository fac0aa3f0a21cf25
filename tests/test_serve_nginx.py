"""The reverse-proxy recipe (corpusdb/serving/nginx.conf) is valid nginx: `nginx -t -c` on it.

The recipe's certificate paths are replaced by throwaway self-signed files made here (nginx -t opens
them), and its pid and log files are pointed into the test's folder; nothing else of it changes.
Skipped with the reason when nginx is not installed (`.ci/run` installs it).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from corpusdb.serving import TEMPLATES

RECIPE = TEMPLATES.parent / "nginx.conf"


def test_the_nginx_recipe_passes_nginx_t(tmp_path: Path) -> None:
    nginx = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)
    if nginx is None:
        pytest.skip("nginx is not installed (apt-get install nginx; .ci/run does)")
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is needed to make a throwaway certificate for nginx -t")
    cert, key = tmp_path / "fullchain.pem", tmp_path / "privkey.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=annotate.example.org",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    text = RECIPE.read_text()
    assert "proxy_set_header Upgrade $http_upgrade" in text and "127.0.0.1:8000" in text
    conf = text.replace("/etc/ssl/corpusdb/fullchain.pem", str(cert)).replace(
        "/etc/ssl/corpusdb/privkey.pem", str(key)
    )
    prefix = f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n"
    conf = prefix + conf.replace("http {", f"http {{\n    access_log {tmp_path}/access.log;", 1)
    (tmp_path / "nginx.conf").write_text(conf)
    got = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")], capture_output=True, text=True
    )
    assert got.returncode == 0, got.stderr
    assert "syntax is ok" in got.stderr and "test is successful" in got.stderr
    broken = conf.replace("proxy_http_version 1.1;", "proxy_http_version 1.1")  # the test can fail
    (tmp_path / "broken.conf").write_text(broken)
    bad = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "broken.conf")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0
