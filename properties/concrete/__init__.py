"""The concrete checks: the compiled reference model played and checked.

- `invariants`: the per-state and per-step property checks every game gets;
- `playout`: seeded random games with those checks after every action;
- `stateful`: the Hypothesis state machine of the property suite, and its profiles;
- `pairwise`: covering arrays of variant configurations;
- `coverage`: which actions, clauses and end conditions the runs exercised;
- `trace`: readable, replayable traces (replay files), checked step by step;
- `clarify`: a clarification's example played, and what the model did not do as expected;
- `text_safety`: spec text made safe to show, in Markdown and on a terminal.
"""
