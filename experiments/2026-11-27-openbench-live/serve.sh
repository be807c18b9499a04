#!/usr/bin/env bash
# Starts the local OpenBench after setup.sh: the GitHub stand-in (fake_github.py on 127.0.0.1:443, serving this
# checkout as github.com/kairos-local/kairos), OpenBench's server (Django's runserver on 127.0.0.1:8000) and one
# OpenBench worker with 2 threads (two games at a time, one core each). Logs in $OB_HOME/logs; stop with
# `pkill -f fake_github.py; pkill -f 'manage.py runserver'; pkill -f client.py`.
# The worker's python3 must import PyTorch 2.11 so that Kairos's build links it and the binary outlives the
# build directory (docs/openbench.md): KAIROS_TORCH_SITE (default: this checkout's .libtorch, which scripts/setup
# filled from PyPI) goes on its PYTHONPATH.
# usage: [OB_HOME=/work/openbench] serve.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kairos=$(cd "$here/../.." && pwd)
home=${OB_HOME:-/work/openbench}
cd "$home"
mkdir -p logs
export REQUESTS_CA_BUNDLE=$home/tls/bundle.pem
nohup venv/bin/python "$here/fake_github.py" --cert tls/server.pem --key tls/server.key \
  --repo "kairos=$kairos" --raw raw > logs/fake_github.log 2>&1 &
(cd server && nohup ../venv/bin/python manage.py runserver 127.0.0.1:8000 --noreload > ../logs/server.log 2>&1 &)
sleep 3
export PYTHONPATH=${KAIROS_TORCH_SITE:-$kairos/.libtorch}
(cd server/Client && nohup ../../venv/bin/python client.py -U kairos -P kairos -S http://127.0.0.1:8000 \
  --no-client-downloads -T 2 -N 1 > ../../logs/worker.log 2>&1 &)
echo "OpenBench at http://127.0.0.1:8000 (logs in $home/logs)"
