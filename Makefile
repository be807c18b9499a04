# Kairos. `make bench` and `make test` are the two commands a new machine needs (see README.md); both install
# what they need first. `make EXE=path` builds the engine binary at path (the OpenBench convention);
# `EVALFILE=path` (OpenBench's network) becomes the binary's default WeightsFile.

EXE ?= kairos
CARGO ?= cargo
EVALFILE ?=

.PHONY: all setup build bench test dist clean

all: build
	cp target/release/kairos "$(EXE)"

# Through bash: OpenBench's client unpacks the source zip with Python's zipfile, which drops execute bits.
setup:
	bash scripts/setup

build: setup
	$(if $(EVALFILE),KAIROS_EVALFILE="$(abspath $(EVALFILE))") $(CARGO) build --release -p kairos --bin kairos

bench: build
	./target/release/kairos bench

test: setup
	$(CARGO) test --workspace

# A release that runs outside the checkout: dist/kairos-VERSION-linux-x86_64.tar.gz (README.md, "Play it"); the
# script runs scripts/setup itself.
dist:
	bash scripts/dist

clean:
	$(CARGO) clean
