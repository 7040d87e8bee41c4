"""The live floor dashboard the recorder serves over HTTP (`hub --http HOST:PORT`).

Server-rendered HTML with one small script; live updates by server-sent events. Only the
recorder imports it (never the table daemon): standard library and asyncio, no web framework.
"""
