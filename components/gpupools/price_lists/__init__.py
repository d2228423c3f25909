"""Where prices come from: the clouds' public price lists read into a local price book (``gpupools prices
refresh``), and the book an offline plan uses (the local cache over the packaged snapshot)."""
