"""What an atlas that travels may be trusted with: load-time integrity (:mod:`.integrity`) and
signed exports (:mod:`.signing`)."""

from toolatlas.trust.integrity import Dropped, LoadReport, admit, summary
from toolatlas.trust.signing import fingerprint, generate_keys, sign_document, verify_document

__all__ = ["Dropped", "LoadReport", "admit", "fingerprint", "generate_keys", "sign_document", "summary",
           "verify_document"]
