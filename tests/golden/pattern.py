"""pattern.py N [hex]: N bytes of the golden images' pattern, byte i =
(7 * i + 3) % 251, on stdout (as hex text with `hex`)."""
import sys

data = bytes((7 * i + 3) % 251 for i in range(int(sys.argv[1])))
if len(sys.argv) > 2 and sys.argv[2] == "hex":
    sys.stdout.write(data.hex()[: int(sys.argv[1])])
else:
    sys.stdout.buffer.write(data)
