"""``python -m bench``: run the sections, print the table, write it as JSON (see ``bench/__init__``)."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench.config import BenchConfig, machine
from bench.table import Section, render_markdown, render_text, write_json

# key -> module with ``measure(config, workdir) -> Section``, in the order the issue lists them.
SECTIONS = {
    "overhead": "bench.overhead",
    "prefetch": "bench.prefetch",
    "requests": "bench.requests",
    "context": "bench.context",
    "concurrency": "bench.concurrency",
    "ui": "bench.ui_latency",
    "events": "bench.event_cpu",
    "modelcalls": "bench.modelcalls",
}
# Run only when asked for (--only): realmodel needs a real model and takes tens of minutes on a laptop's
# CPU; bigtree needs real git trees on the machine (/work/.mirror, or BIGTREE_SOURCES); replicas starts
# three stacks of scripts/replicas.sh (redis-server, nginx, five app processes).
OPTIONAL = {
    "realmodel": "bench.realmodel",
    "localmodel": "bench.localmodel",  # issue 37: the 0.5B and the 1.5B on truth-bench repositories
    "realrepos": "bench.realrepos",
    "truth": "bench.truth",
    "bigtree": "bench.bigtree",
    "replicas": "bench.replicas",
    # issue 35's attack classes served against a hosted app, beside issue 20's (bench/hosted_attacks.py)
    "hosted_attacks": "bench.hosted_round4",
}
log = logging.getLogger("bench")


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--only", default="", help=f"comma-separated sections: {','.join(SECTIONS)}")
    parser.add_argument("--quick", action="store_true", help="small latencies and counts (a smoke run)")
    parser.add_argument("--github-latency", type=float, help="seconds per GitHub request (default 0.1)")
    parser.add_argument("--model-latency", type=float, help="seconds to first token per turn (default 0.3)")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--runs", type=int, help="repetitions of each timed plan (default 3)")
    parser.add_argument("--sessions", type=int, help="simultaneous analyses (default 20)")
    parser.add_argument("--out", type=Path, default=Path("bench/results.json"))
    parser.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    parser.add_argument(
        "--llm-url", help="realmodel: an OpenAI-compatible base URL (default: local llama.cpp)"
    )
    parser.add_argument("--llm-model", help="realmodel: the model name at --llm-url")
    parser.add_argument("--llm-key", help="realmodel: the API key for --llm-url (never written anywhere)")
    parser.add_argument(
        "--llm-size", choices=["0.5b", "1.5b"], help="realmodel: the local model (default 1.5b)"
    )
    parser.add_argument("--llm-max-tokens", type=int, help="realmodel: the reply limit (default 768)")
    parser.add_argument(
        "--repos",
        help="realmodel, realrepos, truth: comma-separated owner/name (default: all of the section's)",
    )
    parser.add_argument(
        "--mirror",
        help="realrepos, truth: folder of fetched repositories DIR/OWNER+NAME/repo (default /work/.mirror)",
    )
    parser.add_argument(
        "--baseline",
        help="concurrency, modelcalls, bigtree: another checkout of the app (e.g. `git worktree add "
        "/tmp/base main`), measured side by side with this one",
    )
    return parser.parse_args(argv)


def configure(args: argparse.Namespace) -> BenchConfig:
    config = BenchConfig().quickened() if args.quick else BenchConfig()
    changes = {
        name: getattr(args, name)
        for name in (
            "github_latency",
            "model_latency",
            "seed",
            "runs",
            "sessions",
            "llm_url",
            "llm_model",
            "llm_key",
            "llm_size",
            "llm_max_tokens",
            "baseline",
            "mirror",
        )
        if getattr(args, name) is not None
    }
    if args.repos:
        changes["repos"] = tuple(r.strip() for r in args.repos.split(",") if r.strip())
    return replace(config, **changes)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = parse(sys.argv[1:] if argv is None else argv)
    known = SECTIONS | OPTIONAL
    wanted = [key.strip() for key in args.only.split(",") if key.strip()] or list(SECTIONS)
    unknown = [key for key in wanted if key not in known]
    if unknown:
        log.error("unknown section(s) %s; choose from %s", ", ".join(unknown), ", ".join(known))
        return 2
    config = configure(args)
    sections: list[Section] = []
    with tempfile.TemporaryDirectory(prefix="bench-") as folder:
        for key in wanted:
            module = importlib.import_module(known[key])
            started = time.perf_counter()
            log.warning("measuring %s ...", key)
            section = module.measure(config, Path(folder) / key)
            sections.append(replace(section, seconds=round(time.perf_counter() - started, 2)))
    sys.stdout.write(render_text(sections) + "\n")
    if args.markdown:
        sys.stdout.write("\n" + render_markdown(sections) + "\n")
    write_json(args.out, sections, config=config.as_dict(), machine=machine())
    sys.stdout.write(f"\nwritten to {args.out}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
