"""The symbolic back end (z3): the same IR the concrete model is compiled from, translated to z3.

A symbolic state (`SymState`) holds, for every zone instance, one integer per card or
token kind of the zone's class (how many of that kind lie there), plus, for piles, the
kind on top and, within one transition, whatever is known of the items just below
the top; every variable is one z3 term (`Int` for numbers, players, kinds, indices and
enum names, `Bool` for yes/no). Statements are executed symbolically (`Exec`): an `if`
runs both branches and merges the two states with `If` terms, loops over constant lists
are unrolled, `while` and `repeat` are unrolled up to a bound. What the concrete model
would refuse (a card taken from a zone without it, the top of an empty pile) is
collected as an undefinedness condition instead of an exception.

Chance (a shuffle, the card under the top of a face-down pile) is a nondeterministic
choice: a fresh variable constrained only by what the counts allow. That is an
over-approximation of the concrete model, which fixes the order at the shuffle; every
such choice is logged as an `Event`, so a witness can be turned back into concrete
shuffle outcomes (`properties.witness`). docs/symbolic.md describes the encoding.

Nothing here knows any game: the translation reads only the IR.

The modules, in the order a formula is built:

- `terms`: z3 terms built fast through the C API, and the deadline on building them;
- `state`: the symbolic state and its layout (`Enc`), values read back from a model;
- `execute`: expressions and statements run symbolically (`Exec`);
- `retry`: loops that redraw until the cards fit, proved to forget the last try and run
  as one try;
- `machine`: a game's transition system (set-up, actions, the round transition);
- `lemmas`: conservation proved effect by effect;
- `queries/`: one module per query family, each returning a `Result`;
- `witness`: a z3 model turned into a concrete, replayable trace, and the check that both
  back ends agree on it;
- `isolate`: queries run in a worker process, stopped at their time limit.

Nothing here knows any game: the translation reads only the IR.
"""
