"""The workflow's plumbing, kept apart from the library a researcher imports (``dplab.account``, ``dplab.train``,
...): the configuration's loading, validation and reference page (``config``, ``config_checks``,
``config_reference``), the artifact and study registry (``registry``), job memory estimates (``resources``), the
helpers the Snakemake rules and scripts call (``helpers``), and the API reference builder (``api_reference``)."""
