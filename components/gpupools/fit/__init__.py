"""``gpupools fit``: from a demand file to pools, at the entry-point level (it reads the price book of
``price_lists``). The exact program is ``domain.fit_solver``; the layout rule is ``domain.mig_layouts``."""
