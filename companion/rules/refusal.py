"""The one error type of the rules core: a refusal that names the rule."""
from .phrase import with_articles


class Refusal(Exception):
    """An action or record the rules forbid; the game state is left as it was.

    `text` is an English template, `params` fill it in, `rule` is the R-number
    of RULES.md (or "record" / "form" for the shape of a record or a form), so a
    shell can show or translate the message (see `companion.rules.phrase`): a shell
    fills in its own version of `text`, then adds the rule with `with_rule`.
    """

    def __init__(self, rule: str, text: str, **params):
        self.rule = rule
        self.text = text
        self.params = params
        self.event: int | None = None
        super().__init__(self.message)

    @property
    def where(self) -> str:
        """'event N' for a refused event of a log, 'header' otherwise."""
        return "header" if self.event is None else f"event {self.event}"

    @property
    def message(self) -> str:
        """The English message, with the rule: 'Anna holds a 4: ... (R3)'."""
        return self.with_rule(with_articles(self.text, self.params).format(**self.params))

    def with_rule(self, body: str) -> str:
        """`body` (this refusal's text, filled in) followed by the rule it names."""
        if not self.rule.startswith("R"):
            return body
        return f"{body} ({self.rule})"


def public_message(refusal: Refusal, secret: bool) -> Refusal:
    """A refusal as the table may see it: with money secret, no coin totals (R12), in
    the refusal itself or in the one it gives as its reason; of the same event."""
    params = refusal.params
    if secret and refusal.rule == "R5" and "coins" in params:
        shown = Refusal("R5", "{player} cannot pay {amount}", player=params["player"],
                        amount=params["amount"])
    elif isinstance(params.get("reason"), Refusal):
        shown = Refusal(refusal.rule, refusal.text,
                        **{**params, "reason": public_message(params["reason"], secret)})
    else:
        return refusal
    shown.event = refusal.event
    return shown
