#!/usr/bin/env bash
# #34 item 3: a live OpenBench on this machine, set up once (idempotent). OpenBench's own server and client,
# unchanged, from a checkout of github.com/AndyGrant/OpenBench; GitHub replaced on the loopback interface by
# fake_github.py (this machine reaches PyPI but not GitHub), which serves this Kairos checkout's commits and
# `git archive` zips, and the opening book's zip.
# usage: OPENBENCH_SRC=/path/to/OpenBench-checkout FASTCHESS_OB=/path/to/fastchess [OB_HOME=/work/openbench] setup.sh
#   FASTCHESS_OB: a fastchess >= 1.8.1 built from github.com/AndyGrant/fastchess (`make -j2`), OpenBench's fork.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kairos=$(cd "$here/../.." && pwd)
home=${OB_HOME:-/work/openbench}
src=${OPENBENCH_SRC:?a checkout of github.com/AndyGrant/OpenBench}
fastchess=${FASTCHESS_OB:?a fastchess built from github.com/AndyGrant/fastchess}
book=$kairos/../shared/books/8mvs_+90_+99.epd
mkdir -p "$home"
cd "$home"

# OpenBench's checkout, the server's and the client's in one (the client runs from its Client/ folder).
[ -d server ] || git clone -q "$src" server
[ -d venv ] || python3 -m venv venv
venv/bin/pip install -q --disable-pip-version-check -r server/requirements.txt -r server/Client/requirements.txt

# A certificate authority and a certificate for the three GitHub host names, and the names on 127.0.0.1.
if [ ! -f tls/server.pem ]; then
  mkdir -p tls
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=kairos-local-ca" \
    -keyout tls/ca.key -out tls/ca.pem 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=api.github.com" -keyout tls/server.key -out tls/server.csr \
    2>/dev/null
  printf 'subjectAltName=DNS:api.github.com,DNS:github.com,DNS:raw.githubusercontent.com\n' > tls/san.ext
  openssl x509 -req -in tls/server.csr -CA tls/ca.pem -CAkey tls/ca.key -CAcreateserial -days 30 \
    -extfile tls/san.ext -out tls/server.pem 2>/dev/null
fi
# The processes get the system's authorities and this one (pip in Kairos's build still reaches PyPI).
cat /etc/ssl/certs/ca-certificates.crt tls/ca.pem > tls/bundle.pem
grep -q "api.github.com" /etc/hosts ||
  echo "127.0.0.1 api.github.com github.com raw.githubusercontent.com" >> /etc/hosts

# The opening book as OpenBench keeps books: a zip at a raw.githubusercontent.com address, with the SHA-256 of its
# text as the client reads it (Python's universal newlines: a book with CRLF line ends is hashed with LF ones, so
# `sha256sum` of the file is not it).
mkdir -p raw/kairos-local/books/main
(cd "$(dirname "$book")" && rm -f "$home/raw/kairos-local/books/main/8mvs_+90_+99.epd.zip" &&
  zip -q "$home/raw/kairos-local/books/main/8mvs_+90_+99.epd.zip" "$(basename "$book")")
sha=$(python3 -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1]).read().encode()).hexdigest())' "$book")
cat > "server/Books/8mvs_+90_+99.epd.json" <<JSON
{
    "sha"     : "$sha",
    "source"  : "https://raw.githubusercontent.com/kairos-local/books/main/8mvs_+90_+99.epd.zip"
}
JSON

# The engine entry (docs/openbench.md), and the server's configuration naming it and the book.
cp "$here/Kairos.json" server/Engines/Kairos.json
venv/bin/python - server/Config/config.json <<'PY'
import json, sys
path = sys.argv[1]
config = json.load(open(path))
for key, name in (("engines", "Kairos"), ("books", "8mvs_+90_+99.epd")):
    if name not in config[key]:
        config[key].append(name)
json.dump(config, open(path, "w"), indent=4)
PY

# The database, and one enabled user who may approve tests (an administrator's switches in OpenBench's admin).
(cd server && ../venv/bin/python manage.py migrate -v 0)
(cd server && ../venv/bin/python manage.py shell -c "
from django.contrib.auth.models import User
from OpenBench.models import Profile
user = User.objects.filter(username='kairos').first() or User.objects.create_user('kairos', '', 'kairos')
profile = Profile.objects.filter(user=user).first() or Profile.objects.create(user=user)
profile.enabled = True; profile.approver = True; profile.save()
")

# OpenBench's fork of fastchess where the client looks for it first.
cp "$fastchess" server/Client/fastchess-ob
echo "OpenBench ready in $home (user kairos, password kairos)"
