"""The asyncssh server and the Textual driver over an SSH channel."""
