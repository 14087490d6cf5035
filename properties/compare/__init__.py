"""Comparing versions of a game (`rulespec diff`, the FAQ's parting games) and what play
does (`rulespec stats`):

- `versions`: reading a version — a spec path, a game id, or PATH@REV from git;
- `rules`: what changed in the rules, on the IR, with renames, reorderings and equivalent
  rewrites told apart from changes in play;
- `parting`: where play parts — the shortest game after which the versions behave
  differently (z3 on both transition systems, else lock-step games), as data: `find_parting`;
- `checks`: the property table of `rulespec check`, old beside new;
- `run`: one `rulespec diff` start to end; `diff_report`: its report and renderings;
- `stats`: play statistics (engine; `policies`, `intervals`, `runner`, `report`, `plots`:
  its parts).
"""
