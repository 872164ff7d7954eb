"""The data layer of compat_matrix/: compatibility relations, GPU rules read from them, failure signatures."""

from xladoctor.matrix.relations import Matrix, MatrixError, Relation, load_matrix, validate_relation

__all__ = ["Matrix", "MatrixError", "Relation", "load_matrix", "validate_relation"]
