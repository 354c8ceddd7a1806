from conftest import run


def test_state_json_on_fresh_init(ledger_repo):
    result = run(ledger_repo, "state", "--json")
    assert result.code == 0, result.err
    assert '"schema": "rehydrate/state-v1"' in result.out
