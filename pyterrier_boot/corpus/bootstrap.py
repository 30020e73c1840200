"""The corpus bootstrap engine: every run and measure on many corpus images, in bounded memory.

Cormack & Lynam (2006) and Zobel & Rashidi (2020). One image is one corpus: a
document's multiplicity is the same for every topic and system of that image (the pairing that
makes differences and ranks on an image meaningful). Runs are not re-executed: each image run is
the full-corpus ranking with every document repeated ``k`` times (``k = 0`` removes it), the qrels
count each judgement ``k`` times, and measures are computed exactly as trec_eval / ir_measures would
on the materialised image (:mod:`pyterrier_boot.measures.materialisation`), without materialising
it. Images are not stratified: a topic whose relevant documents all vanish scores 0 on that image.
"""
from __future__ import annotations

import numbers
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._batches import check_executor, map_batches
from .._checks import check_choice, check_positive_int
from .._memory import (
    DEFAULT_MAX_MEMORY,
    check_max_memory,
    check_n_resamples,
    require_resamples_memory,
)
from .._warnings import FallbackWarning, one_warning_per_kind, suppressed
from ..inputs.qrels import read_qrels
from ..inputs.runs import read_runs
from ..measures.arrays import UNJUDGED
from ..measures.engine import Evaluator
from ..measures.evaluation import intern
from ..measures.lowering import (
    AP,
    BPREF,
    CWL_DEPTH,
    ERR,
    INSQ,
    INST,
    JUDGED,
    NCG,
    NDCG,
    RBP,
    RPREC,
    lower,
)
from ..measures.parsing import parse_measures, require_mean_aggregated
from .multiplicity import (
    MODELS,
    docno_hashes,
    image_keys,
    jackknife_groups,
    multinomial_multiplicities,
    poisson_multiplicities,
)
from .result import CorpusBootstrapResult, unit_measure

if TYPE_CHECKING:
    from collections.abc import Sequence
    from concurrent.futures import Executor
    from typing import Any

    import numpy.typing as npt

    from .._typing import FloatArray, MeasuresLike, QrelsLike, RngLike, RunsLike, TopicsLike
    from ..measures.arrays import JudgedRuns
    from ..measures.parsing import LabelledMeasure


__all__ = ["CorpusBootstrap"]

#: Most images evaluated in one batch (memory permitting): keeps the progress bar moving.
MAX_BATCH = 50

# numba's parallel loops (the image draws) may not be entered from two threads of one process at
# once (the workqueue threading layer aborts): batches on a thread pool or a multi-threaded dask
# worker take turns; each batch already uses every core through numba's own threads.
_ONE_BATCH_AT_A_TIME = threading.Lock()


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name!r} must be True or False, got {type(value).__name__}")
    return bool(value)


def _corpus_bootstrap_iv(qrels, n_images, model, corpus_size, verbose, max_memory, n_groups):
    n_images = check_n_resamples(n_images, "n_images", minimum=2)
    model = check_choice(model, "model", MODELS)
    verbose = _check_bool(verbose, "verbose")
    max_memory = check_max_memory(max_memory)
    # the image keys are drawn here; the image distribution is checked again when its size is known
    require_resamples_memory(n_images, max_memory, what="the corpus bootstrap's image keys and distribution "
                             "(at least one float per image)", floats=2, name="n_images")
    n_groups = check_positive_int(n_groups, "n_groups", minimum=2)
    if corpus_size is not None and (isinstance(corpus_size, bool) or not isinstance(corpus_size, numbers.Integral)):
        raise TypeError(f"'corpus_size' must be a positive integer or None, got {type(corpus_size).__name__}")
    if corpus_size is not None and corpus_size < 1:
        raise ValueError(f"'corpus_size' must be a positive integer or None, got {corpus_size}")
    qrels = read_qrels(qrels)  # a Qrels is taken as it is
    size = corpus_size if corpus_size is not None else qrels.corpus_size
    if model == "multinomial" and size is None:
        raise ValueError(
            "model='multinomial' needs the number of documents in the collection: pass corpus_size=..., "
            "or qrels from ir_datasets (whose docs_count() gives it); model='poisson' needs no corpus size"
        )
    return qrels, n_images, model, verbose, max_memory, n_groups, size


class CorpusBootstrap:
    """Corpus bootstrap of IR evaluation (Cormack & Lynam 2006; Zobel & Rashidi 2020).

    Args:
        qrels: the judgements (anything :func:`pyterrier_boot.read_qrels` accepts: frame, TREC file,
            ``"irds:<id>"``, dataset).
        n_images: number of corpus images ``B`` (at least 2).
        model: ``"poisson"`` (each document's multiplicity ``~ Poisson(1)``, independently; the
            large-corpus model of Cormack & Lynam) or ``"multinomial"`` (``N`` draws with
            replacement from a corpus of ``N`` documents; Zobel & Rashidi). See
            :mod:`pyterrier_boot.corpus.multiplicity` for how images are drawn.
        corpus_size: ``N``, the number of documents in the collection; needed by
            ``"multinomial"`` unless the qrels come from ir_datasets (``docs_count()``). When
            given, it must be at least the number of distinct documents retrieved or judged.
        rng: seed or Generator (SPEC 7). One 64-bit key per image is drawn here, once: every
            :meth:`evaluate` call of this object uses the same images, whatever runs and measures.
        verbose: show a progress bar (``pt.tqdm``) while images are evaluated.
        max_memory: bytes the evaluation may hold (default 1 GiB): the image distribution
            (``B·S·Q·M·8`` bytes, float64, kept whole) plus the delete-a-group jackknife
            (``G·S·Q·M·8``) plus one batch of images, each costing ``4·D`` bytes of multiplicities
            and ``16·S·Q·M`` bytes of engine output (``D`` documents seen, ``S`` systems, ``Q``
            topics, ``M`` measures). Batches hold at most 50 images. A ValueError says so when
            the distribution does not fit.
        n_groups: ``G``, the groups of the delete-a-group jackknife over documents used for the
            BCa acceleration (see :mod:`pyterrier_boot.corpus.intervals`).
        executor: a ``concurrent.futures.Executor`` (a ``ProcessPoolExecutor``, dask.distributed's
            ``Client.get_executor()``, ...) on which batches of images are evaluated, or None
            (default) to evaluate them in this process. Each batch carries the interned runs and
            qrels to its worker; ``max_memory`` then bounds what one worker holds for its batch
            and what this process holds: the image distribution and the batches in flight (each
            counted as twice the interned arrays plus its values). The values are the same as in
            this process (``pt_docs/corpus_bootstrap.md``, "Executors and memory").

    Deterministic for a given ``rng`` whatever the batch size, thread count, executor or order of systems;
    with the Poisson model an image does not even depend on which other runs are evaluated.
    Only documents that are retrieved or judged matter; no images x corpus matrix is ever built.

    Example:
        >>> import pyterrier_boot as ptb
        >>> boot = ptb.CorpusBootstrap("irds:vaswani", n_images=1000, rng=42)      # doctest: +SKIP
        >>> res = boot.evaluate({"BM25": bm25, "DPH": dph}, ["AP", "nDCG@10"],
        ...                     topics="irds:vaswani")                              # doctest: +SKIP
        >>> res.per_system(method="percentile")              # MAP with its interval  # doctest: +SKIP
        >>> res.difference("BM25", "DPH").pvalue                                    # doctest: +SKIP

    References:
        Cormack, G. V. & Lynam, T. R. (2006). Statistical precision of information retrieval
        evaluation. SIGIR. Zobel, J. & Rashidi, L. (2020). Corpus bootstrapping for assessment of
        the properties of effectiveness measures. CIKM.
    """

    def __init__(self, qrels: QrelsLike, *, n_images: int = 1000, model: str = "poisson",
                 corpus_size: int | None = None, rng: RngLike = None, verbose: bool = True,
                 max_memory: int | str | None = DEFAULT_MAX_MEMORY, n_groups: int = 20,
                 executor: Executor | None = None):
        read, n_images, model, verbose, max_memory, n_groups, size = _corpus_bootstrap_iv(
            qrels, n_images, model, corpus_size, verbose, max_memory, n_groups)
        self.qrels = read
        self.n_images = n_images
        self.model = model
        self.corpus_size = corpus_size
        self.rng = rng
        self.verbose = verbose
        self.max_memory = max_memory
        self.n_groups = n_groups
        self.executor = check_executor(executor)
        self._size = size
        self.keys = image_keys(rng, n_images)

    def __repr__(self):
        return (f"CorpusBootstrap({self.qrels!r}, n_images={self.n_images}, model={self.model!r}, "
                f"corpus_size={self.corpus_size}, rng={self.rng!r})")

    def multiplicities(self, docnos: npt.NDArray[Any] | Sequence[str], start: int = 0, stop: int | None = None) -> npt.NDArray[np.int32]:
        """Multiplicities ``int32[image, doc]`` of ``docnos`` (sorted, distinct) in images ``start:stop``."""
        keys = self.keys[start:stop]
        if self.model == "poisson":
            return poisson_multiplicities(keys, docno_hashes(docnos))
        return multinomial_multiplicities(keys, len(docnos), self._corpus_size_for(len(docnos)))

    def _corpus_size_for(self, n_docs):
        if self._size is not None and self._size < n_docs:
            where = "corpus_size" if self.corpus_size is not None else f"the corpus size of {self.qrels.source}"
            raise ValueError(
                f"{where} ({self._size}) is smaller than the number of distinct documents retrieved or "
                f"judged ({n_docs}): the corpus must contain every document seen"
            )
        return self._size

    def _plan(self, n_docs, cells):
        """Images per batch within ``max_memory`` (see the class docstring)."""
        distribution = (self.n_images + self.n_groups) * cells * 8
        per_image = 4 * n_docs + 16 * cells
        transient = 16 * (n_docs + 1) if self.model == "multinomial" else 0
        free = self.max_memory - distribution - transient
        if free < per_image:
            raise ValueError(
                f"the image distribution [{self.n_images} images x {cells} (system, topic, measure) cells] needs "
                f"{distribution / 2**20:.1f} MiB (float64) plus {per_image / 2**20:.1f} MiB per image evaluated, "
                f"more than max_memory={self.max_memory} bytes: use fewer images, systems, topics or measures, "
                "or raise max_memory"
            )
        return int(min(self.n_images, MAX_BATCH, free // per_image))

    def _window(self, arrays, cells, batch):
        """Batches submitted ahead to the executor: as many as fit in ``max_memory`` beside the image
        distribution, each counted as twice the interned arrays it carries (serialised, then sent)
        plus its values; at least one."""
        if self.executor is None:
            return None
        payload = sum(np.asarray(v).nbytes for v in vars(arrays).values() if isinstance(v, np.ndarray))
        per_task = 2 * (payload + 8 * arrays.n_docs) + batch * cells * 16
        return max(1, (self.max_memory - self.n_images * cells * 8) // per_task)

    @one_warning_per_kind()
    def evaluate(self, runs: RunsLike, measures: MeasuresLike, *, topics: TopicsLike | None = None) -> CorpusBootstrapResult:
        """Evaluate runs on the full corpus and on every image.

        Args:
            runs: a dict ``name -> run``, a list of runs, a folder of TREC run files, a frame, a
                file or PyTerrier transformers (anything :func:`pyterrier_boot.read_runs` accepts).
            measures: ir_measures measures or strings (``"AP"``, ``"nDCG@10"``, ``"RBP(p=0.95)"``);
                labels are kept as written. Measures summed over topics (``NumRet``, ...) are
                refused. Measures without a kernel are computed by materialising every image
                (slow; :class:`~pyterrier_boot.FallbackWarning`).
            topics: topics to run transformers on.

        Returns:
            :class:`~pyterrier_boot.corpus.result.CorpusBootstrapResult`.
        """
        measures = parse_measures(measures)
        require_mean_aggregated(measures, context="a corpus-bootstrap interval")
        runs = read_runs(runs, topics=topics, verbose=self.verbose)
        return self.evaluate_prepared(intern(runs, self.qrels, measures))

    @one_warning_per_kind()
    def evaluate_prepared(self, evaluator: Evaluator, *, statistic: FloatArray | None = None,
                          keep: Any = None, hashes: npt.NDArray[np.uint64] | None = None) -> CorpusBootstrapResult:
        """:meth:`evaluate` for runs already read and interned (an
        :class:`~pyterrier_boot.measures.engine.Evaluator`, as ``Experiment`` has one), with their
        values on the full corpus when already computed (``[system, topic, measure]``).

        ``keep``: optional boolean mask over ``evaluator.arrays.docnos``: the corpus bootstrap of
        the sub-collection of those documents (a corpus half,
        :func:`~pyterrier_boot.split_half_validation`) without reading and interning its runs and
        qrels again; the same as bootstrapping the runs and qrels without the other documents
        (each document's multiplicity in an image depends only on its docno), except that topics
        stay those of the full qrels (a topic left without judgements scores 0, as a topic whose
        relevant documents all vanish). ``statistic`` is then that of the sub-collection.
        Multinomial images need the sub-collection's size as ``corpus_size``. ``hashes``: the
        :func:`~pyterrier_boot.corpus.multiplicity.docno_hashes` of ``evaluator.arrays.docnos``
        when already computed.
        """
        require_mean_aggregated(evaluator.measures, context="a corpus-bootstrap interval")
        if keep is not None:
            keep = np.asarray(keep)
            D = evaluator.arrays.n_docs
            if keep.dtype != np.bool_ or keep.shape != (D,):
                raise ValueError(f"'keep' must be a boolean mask over the {D} documents seen, got dtype "
                                 f"{keep.dtype} and shape {keep.shape}")
            evaluator = Evaluator(evaluator.arrays.restrict(keep), evaluator.measures)
            hashes = None if hashes is None else np.asarray(hashes)[keep]
        arrays = evaluator.arrays
        S, Q, M, D = arrays.n_systems, arrays.n_topics, len(evaluator.measures), arrays.n_docs
        size = self._corpus_size_for(D) if (self.model == "multinomial" or self.corpus_size is not None) else None
        batch = self._plan(D, S * Q * M)
        if statistic is None:
            statistic = evaluator.evaluate(np.ones((1, D), np.int32), identity=True)[0]

        if hashes is None:
            hashes = docno_hashes(arrays.docnos)
        jackknife = self._jackknife(evaluator, hashes, batch)
        distribution = self._images(evaluator, hashes, size, batch)
        n_relevant, depth = _small_r_inputs(arrays, evaluator.measures)
        return CorpusBootstrapResult(
            statistic=statistic,
            bootstrap_distribution=distribution,
            jackknife_distribution=jackknife,
            systems=tuple(arrays.systems),
            qids=tuple(arrays.qids.tolist()),
            measures=tuple(lm.label for lm in evaluator.measures),
            model=self.model,
            corpus_size=size,
            keys=self.keys.copy(),
            documents=arrays.docnos,
            n_relevant=n_relevant,
            depth=depth,
            unit=tuple(unit_measure(lm.measure) for lm in evaluator.measures),
            found=_relevant_found(arrays, evaluator.measures),
        )

    def _jackknife(self, evaluator, hashes, batch):
        """Values ``[group, system, topic, measure]`` of the delete-a-group jackknife over documents."""
        arrays = evaluator.arrays
        groups = jackknife_groups(hashes, self.n_groups)
        jackknife = np.empty((self.n_groups, arrays.n_systems, arrays.n_topics, len(evaluator.measures)))
        for start in range(0, self.n_groups, batch):  # collection g lacks the documents of group g
            stop = min(start + batch, self.n_groups)
            deleted = (groups[None, :] != np.arange(start, stop)[:, None]).astype(np.int32)
            jackknife[start:stop] = evaluator.evaluate(deleted)
            del deleted
        return jackknife

    def _images(self, evaluator, hashes, size, batch):
        """Values ``[image, system, topic, measure]`` on every image, ``batch`` images at a time,
        here or on ``self.executor`` (each image depends only on its key: the same values either way)."""
        arrays = evaluator.arrays
        distribution = np.empty((self.n_images, arrays.n_systems, arrays.n_topics, len(evaluator.measures)))
        if self.executor is not None:  # ship only what an image needs: the interned arrays, not the frames
            evaluator = Evaluator(arrays, evaluator.measures)
        work = _ImageBatch(evaluator, hashes, self.model, size)
        starts = range(0, self.n_images, batch)
        key_blocks = (self.keys[start:start + batch] for start in starts)
        import pyterrier as pt

        with pt.tqdm(total=self.n_images, desc="corpus bootstrap", unit="image", disable=not self.verbose) as bar:
            batches = map_batches(work, key_blocks, self.executor, window=self._window(arrays, distribution[0].size, batch))
            for start, values in zip(starts, batches, strict=True):
                distribution[start:start + len(values)] = values
                bar.update(len(values))
        return distribution


@dataclass(frozen=True)
class _ImageBatch:
    """Values ``[image, system, topic, measure]`` of the images whose keys it is called on.

    A picklable, module-level callable, so batches of images run on any
    ``concurrent.futures.Executor`` (process pools, ``dask.distributed``'s ``Client.get_executor()``):
    each worker receives the interned runs and qrels (``evaluator``), the documents' hashes and
    the image model, draws the multiplicities of its images from their keys and evaluates them.
    """

    evaluator: Evaluator
    hashes: npt.NDArray[np.uint64]
    model: str
    corpus_size: int | None

    def __call__(self, keys: npt.NDArray[np.uint64]) -> FloatArray:
        """Values of the images with these keys (in order). A fallback measure was reported once
        already, by the jackknife in the calling process: batches (perhaps in other threads or
        processes, outside its warning pool) do not repeat it."""
        with _ONE_BATCH_AT_A_TIME, suppressed(FallbackWarning):
            if self.model == "poisson":  # drawn inside the kernel: no [image, document] array
                return self.evaluator.evaluate_poisson(keys, self.hashes)
            # CorpusBootstrap checked that multinomial images have a corpus size
            k = multinomial_multiplicities(keys, self.evaluator.arrays.n_docs, int(self.corpus_size or 0))
            return self.evaluator.evaluate(k)


def _small_r_inputs(arrays, measures):
    """For AP measures: R per (topic, measure) and the run depth (capped at the cutoff) per cell.

    ``n_relevant`` is -1 for other measures (no small-R correction).
    """
    S, Q, M = arrays.n_systems, arrays.n_topics, len(measures)
    n_relevant = np.full((Q, M), -1, dtype=np.int64)
    depth = np.zeros((S, Q, M), dtype=np.int64)
    lengths = np.diff(arrays.run_offsets).reshape(S, Q)
    topic_of = np.repeat(np.arange(Q), np.diff(arrays.qrels_offsets))
    for m, lm in enumerate(measures):
        km = lower(lm.measure)
        if km is not None:
            if km.kind != AP:
                continue
            rel, cutoff = km.rel, km.cutoff
        elif lm.measure.NAME == "AP":
            params = dict(lm.measure.params)
            rel = max(int(params.get("rel", 1)), 0)
            cutoff = int(params.get("cutoff", 0) or 0)
        else:
            continue
        n_relevant[:, m] = np.bincount(topic_of[arrays.qrels_codes >= arrays.code_at_least(rel)], minlength=Q)
        depth[:, :, m] = np.minimum(lengths, cutoff) if cutoff > 0 else lengths
    return n_relevant, depth


def _relevant_found(arrays: JudgedRuns, measures: Sequence[LabelledMeasure]) -> npt.NDArray[np.int64]:
    """Relevant documents each cell retrieved within each measure's depth, ``[system, topic, measure]``.

    Counted as the measure's kernel scores: relevant is a grade at least ``rel`` (AP, P, R, RR,
    Success, Rprec, RBP, Q) or a judged grade with a positive gain (nDCG, nCG, ERR, INSQ, INST;
    ``gains=`` may give one to a negative grade); the depth is the cutoff (for RBP, INSQ, INST
    cwl_eval's positions whose weight is not 0; R for Rprec; the whole ranking without one), ranks
    and grades among judged documents (grade >= 0) for ``judged_only`` measures. Such a measure
    is 0 exactly when its count is: the count the empirical-Bayes variance models
    (:mod:`pyterrier_boot.corpus.empirical_bayes`). -1 for measures that can be 0 with relevant
    documents retrieved (Bpref, Judged) and for measures without a kernel.
    """
    S, Q = arrays.n_systems, arrays.n_topics
    codes = arrays.run_codes  # grade codes: compare as grades, negative for negative grades
    start, stop = arrays.run_offsets[:-1], arrays.run_offsets[1:]
    judged = codes >= 0  # judged_only's documents: trec_eval reads negative grades as unjudged
    judged_before = None  # judged documents before each position, computed for judged_only measures
    qrels_topic = np.repeat(np.arange(Q), np.diff(arrays.qrels_offsets))
    found = np.full((S, Q, len(measures)), -1, dtype=np.int64)
    for m, lm in enumerate(measures):
        km = lower(lm.measure)
        if km is None or km.kind in (BPREF, JUDGED):
            continue
        if km.kind in (NDCG, NCG, ERR, INSQ, INST):  # gains of every judged grade, negative ones too
            seen = np.unique(codes[codes != UNJUDGED])
            hit = np.isin(codes, seen[[km.gain(int(g)) > 0 for g in arrays.grades_of(seen)]])
            if km.judged_only:
                hit &= judged
        else:
            hit = judged & (codes >= arrays.code_at_least(km.rel))
        if km.kind == RPREC:
            depth = np.tile(np.bincount(qrels_topic[arrays.qrels_codes >= arrays.code_at_least(km.rel)],
                                        minlength=Q), S)
        elif km.kind in (RBP, INSQ, INST):  # cwl_eval's positions whose weight is not 0 (small p underflows)
            weights = km.position_weights()
            depth = CWL_DEPTH if weights is None else int(np.count_nonzero(weights))
        else:
            depth = km.cutoff or None
        if depth is None:
            end = stop
        elif km.judged_only:  # one past the depth-th judged document of each cell
            judged_before = _prefix_counts(judged) if judged_before is None else judged_before
            end = np.clip(np.searchsorted(judged_before, judged_before[start] + depth), start, stop)
        else:
            end = np.minimum(start + depth, stop)
        hits_before = _prefix_counts(hit)
        found[:, :, m] = (hits_before[end] - hits_before[start]).reshape(S, Q)
    return found


def _prefix_counts(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """``out[p]``: how many of ``mask[:p]`` are true (``len(mask) + 1`` values)."""
    out = np.zeros(len(mask) + 1, dtype=np.int64)
    np.cumsum(mask, out=out[1:])
    return out
