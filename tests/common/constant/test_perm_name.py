from mqlab.common.constant import perm_name as pn


def test_bits_and_strings():
    assert (pn.PERM_PRIORITY, pn.PERM_READ, pn.PERM_WRITE, pn.PERM_INHERIT) == (8, 4, 2, 1)
    assert pn.perm2string(6) == "RW-"
    assert pn.perm2string(7) == "RWX"
    assert pn.perm2string(2) == "-W-"
    assert pn.perm2string(0) == "---"
    assert pn.is_readable(6) and pn.is_writeable(6) and not pn.is_inherited(6)
    assert pn.is_inherited(7) and pn.is_priority(8) and not pn.is_priority(7)
