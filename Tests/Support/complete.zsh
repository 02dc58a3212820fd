#!/usr/bin/env zsh
# Types a command line into an interactive zsh on a pseudo-terminal (zsh/zpty), presses Tab twice
# and prints what zsh showed (its listing and the completed line), as a user at a terminal sees
# it. Usage: complete.zsh COMPLETIONS_DIR "receipt render --model "
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1='> '; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; setopt autolist nolistbeep; LISTMAX=10000"
zpty -w z "print READY"
while zpty -r z line; do [[ $line == READY* ]] && break; done
zpty -w -n z "$2"$'\t\t'
sleep 2
zpty -w -n z $'\C-u'
zpty -w z "print DONE"
out=""
while zpty -r -t z line 2>/dev/null; do out+=$line; [[ $line == *DONE* ]] && break; done
print -r -- "$out"
zpty -d z
