"""Plain-text tables for notebook output."""

import pytest

from mqlab.teaching import format_table, print_table


@pytest.mark.spec("TEACH-10")
def test_columns_align_numbers_right_and_text_left():
    text = format_table([("broker-a:0", 12, None), ("broker-b:10", 5, "x")], ["queue", "offset", "note"])
    assert text.splitlines() == [
        "queue        offset  note",
        "broker-a:0       12  -",
        "broker-b:10       5  x",
    ]


def test_explicit_alignment_gap_and_ragged_rows(capsys):
    print_table([("a", 1), ("bb",)], align="rl", gap=1)
    assert capsys.readouterr().out == " a 1\nbb\n"
    with pytest.raises(ValueError, match="align"):
        format_table([("a", 1)], align="l")
    assert format_table([]) == ""
