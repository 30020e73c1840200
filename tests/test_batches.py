"""The batch door: seeds per block, in-order mapping, executors named by the CLI."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from pyterrier_boot._batches import block_seeds, check_executor, executor_from, map_batches


def _draw(seed):
    return np.random.default_rng(seed).random(3)


def test_block_seeds_repeat_for_the_same_rng_and_differ_between_blocks():
    a = [_draw(s) for s in block_seeds(7, 10, 4)]
    b = [_draw(s) for s in block_seeds(np.random.default_rng(7), 10, 4)]
    assert len(a) == 3
    np.testing.assert_array_equal(np.concatenate(a), np.concatenate(b))
    assert not np.array_equal(a[0], a[1])


def test_block_seeds_refuse_an_empty_block():
    with pytest.raises(ValueError, match="block"):
        block_seeds(0, 10, 0)


def test_map_batches_is_in_order_and_the_same_on_an_executor():
    seeds = block_seeds(3, 50, 5)
    here = list(map_batches(_draw, seeds))
    with ThreadPoolExecutor(2) as pool:
        there = list(map_batches(_draw, seeds, pool))
    np.testing.assert_array_equal(np.stack(here), np.stack(there))


def test_check_executor_names_the_argument():
    assert check_executor(None) is None
    with pytest.raises(TypeError, match="'executor'"):
        check_executor(4)


def test_executor_from_the_cli_options():
    with executor_from(None) as none:
        assert none is None
    with executor_from(2, "threads") as pool:
        assert pool.submit(sum, [1, 2]).result() == 3
    with pytest.raises(ValueError, match="--workers"):
        with executor_from(0):
            pass
    with pytest.raises(ValueError, match="--scheduler"):
        with executor_from(2, "mpi"):
            pass
