#!/usr/bin/env python3
"""Summarises the execution samples of a JFR recording per thread group: the methods most often
on top of the stack (self) and on the stack at all (inclusive). Thread names lose their digits, so
Netty's event loops count as one group and the command threads as another.

  jfr print --json --events jdk.ExecutionSample REC.jfr > REC.json
  lsm-integration/jfr-samples.py REC.json [TOP_SELF [TOP_INCLUSIVE]]
"""
import collections
import json
import sys


def name(frame):
    return frame['method']['type']['name'].split('.')[-1] + '.' + frame['method']['name']


def main():
    events = json.load(open(sys.argv[1]))['recording']['events']
    top, inclusive, threads = collections.Counter(), collections.Counter(), collections.Counter()
    n = 0
    for e in events:
        if e['type'] != 'jdk.ExecutionSample' or not e['values'].get('stackTrace'):
            continue
        v = e['values']
        frames = v['stackTrace']['frames']
        thread = v['sampledThread']['javaName'] or v['sampledThread']['osName']
        thread = ''.join(c for c in thread if not c.isdigit()).rstrip('-')
        threads[thread] += 1
        n += 1
        top[(thread, name(frames[0]))] += 1
        for method in {name(f) for f in frames}:
            inclusive[(thread, method)] += 1
    print('samples', n, threads.most_common(10))
    print('--- self')
    for k, c in top.most_common(int(sys.argv[2]) if len(sys.argv) > 2 else 30):
        print(c, *k)
    print('--- inclusive')
    for k, c in inclusive.most_common(int(sys.argv[3]) if len(sys.argv) > 3 else 60):
        print(c, *k)


if __name__ == '__main__':
    main()
