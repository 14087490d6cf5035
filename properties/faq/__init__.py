"""The clarified-rules FAQ and its published site.

- `entries`: the FAQ of one spec as data (questions with their readings, ruling and
  where the readings part; clarifications; every citation);
- `search`: where a reading parts from the ruling;
- `claims`: what a variant claims about how it differs, refuted by play where false;
- `citations`: every `cite:` of a spec with the clause that makes it;
- `markdown`: the FAQ as Markdown (docs/faq/<game>.md);
- `site`: the FAQ as a self-contained static site, with the annotated rulebooks;
- `table`: a state drawn as the table a player sees;
- `explorer`: the site's rules explorer, each parting game stepped through under both
  readings.
"""
