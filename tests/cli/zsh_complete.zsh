# zsh_complete.zsh DIR LINE: type LINE and a TAB into an interactive zsh (a pseudo-terminal, no
# user configuration) that loaded `kubectl-dagsched completion zsh` with compinit, then Enter;
# prints what the terminal showed. Run with `zsh -f`. DIR holds kubectl-dagsched.
zmodload zsh/zpty || exit 1
zpty z "PATH=${(q)1}:\$PATH zsh -f -i"
zpty -w z 'PS1="> "; autoload -U compinit && compinit -u -D; source <(kubectl-dagsched completion zsh)'
zpty -w z 'print LOADED $+functions[_kubectl_dagsched]'
zpty -w -n z "$2"$'\t'
sleep 1 # the completion runs before the Enter is typed (typeahead is dropped while it runs)
zpty -w -n z $'\r'
zpty -w z 'print END$((1+1))MARK'
out="" line=""
integer idle=0
# Read until the marker's output (its command line shows END$((1+1))MARK, not END2MARK), or
# until the shell showed nothing for 10 seconds.
while (( idle < 50 )); do
  if zpty -r -t z line; then
    out+=$line
    idle=0
    [[ $out == *END2MARK* ]] && break
  else
    idle+=1
    sleep 0.2
  fi
done
zpty -d z
print -r -- "$out"
