"""The lab's orders caption claims a position effect only when the answers show one."""

from __future__ import annotations

from contextlab.evaluation.orders import OrderAnswer, orders_verdict


def _answers(*marks: bool | None) -> list[OrderAnswer]:
    orders = ("first", "middle", "last")
    return [OrderAnswer(o, i + 1, "x", m, False, None) for i, (o, m) in enumerate(zip(orders, marks, strict=True))]


def test_experiments_orders_verdict_claims_an_effect_only_when_answers_differ() -> None:
    assert orders_verdict(_answers(True, False, True)) == (
        "The order changed the answer: right with the answer document first and last, wrong with it in the middle. "
        "One question shows that it can happen, not how often: contextlab curve --vary orders measures that "
        "on many questions."
    )
    assert orders_verdict(_answers(True, True, True)) == (
        "Right in every order: the order made no difference to this question."
    )
    assert orders_verdict(_answers(False, False, False)) == (
        "Wrong in every order: the order made no difference to this question."
    )
    assert orders_verdict(_answers(None, None, None)) is None
