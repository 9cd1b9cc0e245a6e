"""The lab's orders caption claims a position effect only when the answers show one."""

from __future__ import annotations

from contextlab.evaluation.orders import OrderAnswer, orders_verdict


def _answers(*marks: bool | None, orders: tuple[str, ...] = ("first", "middle", "last")) -> list[OrderAnswer]:
    return [OrderAnswer(o, i + 1, "x", m, False, None) for i, (o, m) in enumerate(zip(orders, marks, strict=True))]


def test_experiments_orders_verdict_claims_an_effect_only_when_answers_differ() -> None:
    assert orders_verdict(_answers(True, False, True)) == (
        "The order changed the answer: right with the answer document first and last, wrong with it in the middle "
        "(flip rate 50%: 1 of the 2 other orders scored otherwise than the first). "
        "One question shows that it can happen, not how often: contextlab curve --vary orders measures that "
        "on many questions."
    )
    assert orders_verdict(_answers(True, True, True)) == (
        "Right in all 3 orders: the order made no difference to this question (flip rate 0%)."
    )
    assert orders_verdict(_answers(False, False, False)) == (
        "Wrong in all 3 orders: the order made no difference to this question (flip rate 0%)."
    )
    assert orders_verdict(_answers(None, None, None)) is None


def test_experiments_orders_verdict_counts_the_flips_over_n_orders() -> None:
    five = ("first", "position 3", "middle", "position 7", "last")
    assert orders_verdict(_answers(True, False, False, True, False, orders=five)) == (
        "The order changed the answer: right with the answer document first and at position 7, wrong with it at "
        "position 3, in the middle and last (flip rate 75%: 3 of the 4 other orders scored otherwise than the "
        "first). One question shows that it can happen, not how often: contextlab curve --vary orders measures "
        "that on many questions."
    )
