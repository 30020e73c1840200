"""Warning classes, so users can filter pyterrier_boot's warnings precisely."""


class BootWarning(UserWarning):
    """Base class of every warning pyterrier_boot emits."""


class InputWarning(BootWarning):
    """Input was accepted but adjusted (topics dropped, labels clipped, ...): the message says how."""


class FallbackWarning(BootWarning):
    """A measure has no fast kernel and is computed by materialising images through ir_measures."""


class DegenerateWarning(BootWarning):
    """A statistic is degenerate (e.g. all paired differences equal); the result says what was returned."""


class FitWarning(BootWarning):
    """A statistical model did not converge, or its estimates are unreliable; the result is flagged."""
