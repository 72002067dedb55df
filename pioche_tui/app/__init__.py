"""The Textual application: one per session, driven by the coordinator's views."""
