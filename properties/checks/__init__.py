"""The checks layer: what a row of the property table claims (its verdict and the evidence
behind it), below the commands (`properties.cli`), the comparison of two versions
(`properties.compare`) and the FAQ (`properties.faq`), which all read verdicts from here."""
