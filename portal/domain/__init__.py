"""The pure core: the rules of the product, importing only the standard library."""
