"""MQVersion: the release names and their numbers."""

from __future__ import annotations

import pytest

from mqlab.common import mix_all, mq_version


def test_the_release_list_matches_4_9_3s_enum_at_its_landmarks():
    # Java: MQVersion.Version has 612 constants, from V3_0_0_SNAPSHOT to V5_9_9
    names = [v.name for v in mq_version.Version]
    assert len(names) == 612 and len(set(names)) == 612
    assert names[:3] == ["V3_0_0_SNAPSHOT", "V3_0_0_ALPHA1", "V3_0_0_BETA1"]
    assert names[15] == "V3_0_0_FINAL" and names[16] == "V3_0_1_SNAPSHOT"
    assert names[-2:] == ["V5_9_9_SNAPSHOT", "V5_9_9"]
    # the numbers other parts of mqlab name (mix_all.CURRENT_VERSION, the reset and the send's checks)
    assert mq_version.CURRENT_VERSION == mix_all.CURRENT_VERSION == 399
    assert mq_version.Version["V3_0_7_SNAPSHOT"].value == 28
    assert mq_version.Version["V3_4_9"].value == 121
    assert "V3_3_0" not in names and "V3_1_0" in names  # 3.3 to 3.9 start at patch 1


@pytest.mark.parametrize(
    ("value", "desc"), [(0, "V3_0_0_SNAPSHOT"), (399, "V4_9_3"), (611, "V5_9_9"), (9999, "V5_9_9")]
)
def test_get_version_desc_names_a_number_and_caps_at_the_last_release(value, desc):
    assert mq_version.get_version_desc(value) == desc


def test_a_negative_version_is_refused():
    with pytest.raises(ValueError, match="-1"):
        mq_version.get_version_desc(-1)
