import json

from mqlab.common.config_manager import ConfigManager, string2file


class Counter(ConfigManager):
    def __init__(self, path):
        self.path = path
        self.value = 0

    def config_file_path(self):
        return self.path

    def encode(self, pretty_format=False):
        return json.dumps({"value": self.value}, indent="\t" if pretty_format else None)

    def decode(self, json_string):
        self.value = json.loads(json_string)["value"]


def test_persist_keeps_a_backup_and_load_falls_back(tmp_path):
    path = tmp_path / "config" / "counter.json"
    c = Counter(path)
    c.value = 1
    c.persist()
    c.value = 2
    c.persist()
    assert json.loads(path.read_text())["value"] == 2
    assert json.loads((tmp_path / "config" / "counter.json.bak").read_text())["value"] == 1
    assert not (tmp_path / "config" / "counter.json.tmp").exists()
    path.write_text("{ not json")
    d = Counter(path)
    assert d.load() is True
    assert d.value == 1  # from the backup


def test_missing_file_is_an_empty_config(tmp_path):
    c = Counter(tmp_path / "nothing.json")
    assert c.load() is True
    assert c.value == 0


def test_string2file_creates_directories(tmp_path):
    target = tmp_path / "a" / "b.json"
    string2file("x", target)
    assert target.read_text() == "x"
