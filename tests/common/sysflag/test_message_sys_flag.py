import pytest
from hypothesis import given

from mqlab.common.sysflag.message_sys_flag import (
    TRANSACTION_NOT_TYPE,
    MessageSysFlag,
    clear_compressed_flag,
    get_transaction_value,
    host_length,
    reset_transaction_value,
)
from tests.strategies import java_ints


@pytest.mark.spec("MSG-11")
def test_values_of_4_9_3():
    assert MessageSysFlag.COMPRESSED_FLAG == 0x1
    assert MessageSysFlag.MULTI_TAGS_FLAG == 0x2
    assert TRANSACTION_NOT_TYPE == 0x0
    assert MessageSysFlag.TRANSACTION_PREPARED_TYPE == 0x4
    assert MessageSysFlag.TRANSACTION_COMMIT_TYPE == 0x8
    assert MessageSysFlag.TRANSACTION_ROLLBACK_TYPE == 0xC
    assert MessageSysFlag.BORNHOST_V6_FLAG == 0x10
    assert MessageSysFlag.STOREHOSTADDRESS_V6_FLAG == 0x20


@pytest.mark.spec("MSG-11")
def test_transaction_type_is_a_two_bit_number():
    assert get_transaction_value(0x31 | 0x8) == 0x8
    assert get_transaction_value(0x0C) == 0xC
    assert reset_transaction_value(0x3D, 0x4) == 0x35
    assert clear_compressed_flag(0x3D) == 0x3C


@pytest.mark.spec("MSG-11")
@given(java_ints)
def test_bit_helpers_touch_only_their_bits(flag):
    for kind in (0x0, 0x4, 0x8, 0xC):
        reset = reset_transaction_value(flag, kind)
        assert get_transaction_value(reset) == kind
        assert reset & ~0xC == flag & ~0xC
    assert clear_compressed_flag(flag) == flag & ~1


@pytest.mark.spec("MSG-6")
def test_host_length():
    assert host_length(0, MessageSysFlag.BORNHOST_V6_FLAG) == 8
    assert host_length(0x10, MessageSysFlag.BORNHOST_V6_FLAG) == 20
    assert host_length(0x10, MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) == 8
