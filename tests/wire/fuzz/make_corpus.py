#!/usr/bin/python3
"""Seeds for decode_fuzzer from the stored captures (tests/wire/data/*.hex).

Each seed is the fuzzer's input: a selector byte (0 request, 1 reply with a
4-byte opcode before the body, 2 connect request, 3 connect response,
4 notification) and a frame body. Usage: make_corpus.py DATA_DIR OUT_DIR
"""
import os
import struct
import sys


def main():
    data_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    n = 0

    def seed(selector, payload):
        nonlocal n
        with open(os.path.join(out_dir, f"seed-{n:05d}"), "wb") as f:
            f.write(bytes([selector]) + payload)
        n += 1

    for name in sorted(os.listdir(data_dir)):
        if not name.endswith(".hex"):
            continue
        first = {}
        opcode_of = {}
        for line in open(os.path.join(data_dir, name)):
            fields = line.split()
            if len(fields) != 3 or fields[1] not in (">", "<"):
                continue
            conn, direction, frame = fields[0], fields[1], bytes.fromhex(fields[2])
            body = frame[4:]
            key = (conn, direction)
            if key not in first:
                first[key] = True
                seed(2 if direction == ">" else 3, body)
                continue
            xid = struct.unpack(">i", body[:4])[0] if len(body) >= 4 else 0
            if direction == ">":
                seed(0, body)
                if len(body) >= 8:
                    opcode_of[(conn, xid)] = body[4:8]
            elif xid == -1:
                seed(4, body)
            elif (conn, xid) in opcode_of:
                seed(1, opcode_of[(conn, xid)] + body)
    print(f"{n} seeds")


if __name__ == "__main__":
    main()
