# Kairos. `make bench` and `make test` are the two commands a new machine needs (see README.md); both install
# what they need first. `make EXE=path` builds the engine binary at path (the OpenBench convention).

EXE ?= kairos
CARGO ?= cargo

.PHONY: all setup build bench test clean

all: build
	cp target/release/kairos "$(EXE)"

setup:
	./scripts/setup

build: setup
	$(CARGO) build --release -p kairos --bin kairos

bench: build
	./target/release/kairos bench

test: setup
	$(CARGO) test --workspace

clean:
	$(CARGO) clean
