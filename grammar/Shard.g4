// The .shard language. ANTLR 4.7 generates the C++ lexer and parser from this file at build
// time (frontend/CMakeLists.txt); frontend/transformer.cpp turns the parse tree into the AST.
// See grammar/README.md for the conventions (labels, what is checked here and what later).
grammar Shard;

@lexer::members {
  // `//` is both the floor-division operator and the start of a line comment (the language
  // sketch uses both). It is floor division exactly when it follows, on the same line, a
  // token that ends an operand (a name, a literal, `)` or `]`); anywhere else it starts a
  // comment. nextToken() records the last token the parser sees to decide.
  size_t lastSignificantType = 0;
  size_t lastSignificantLine = 0;

  bool afterOperand() const {
    if (lastSignificantLine != tokenStartLine) return false;
    switch (lastSignificantType) {
      case IDENT: case INT: case FLOAT: case STRING: case RPAREN: case RBRACK:
      case TRUE: case FALSE: case NONE:
      case F32: case BF16: case F16: case I32: case I64: case BOOL:
        return true;
      default:
        return false;
    }
  }

  std::unique_ptr<antlr4::Token> nextToken() override {
    auto token = antlr4::Lexer::nextToken();
    if (token->getChannel() == antlr4::Token::DEFAULT_CHANNEL) {
      lastSignificantType = token->getType();
      lastSignificantLine = token->getLine();
    }
    return token;
  }
}

// ---------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------

module_ : decl* EOF ;

decl
  : meshDecl
  | constDecl
  | functionDecl
  ;

// mesh grid = [X: 4, Y: 2];   mesh train = [dp: 4, tp: 2] auto;   mesh t = [tp: 4] devices 0..4;
meshDecl : MESH name=IDENT ASSIGN LBRACK meshAxis (COMMA meshAxis)* COMMA? RBRACK meshOption* SEMI ;
meshAxis : name=IDENT COLON size=expr ;
meshOption
  : AUTO                                  # meshAutoOption
  | EXPLICIT                              # meshExplicitOption
  | DEVICES begin=expr DOTDOT end=expr    # meshDevicesOption
  ;

constDecl : CONST name=IDENT ASSIGN value=expr SEMI ;

// fn helper(x, k) { ... }
// func f(x: f32[8@X, 4]) -> (f32[8@X, 4], f32[4]) on grid { ... }
// shard_map g(x: i32[512@(X,Y)]) -> f32[4] on grid unchecked { ... }
functionDecl
  : kind=(FN | FUNC | SHARD_MAP) name=IDENT LPAREN paramList? RPAREN
    (ARROW results)? (ON mesh=IDENT)? UNCHECKED? block
  ;
paramList : param (COMMA param)* COMMA? ;
param : name=IDENT (COLON typeAnnotation)? ;
results
  : typeAnnotation                                                       # singleResult
  | LPAREN typeAnnotation (COMMA typeAnnotation)* trailing=COMMA? RPAREN   # tupleResult
  ;

// f32[1024@dp, 4096]   bf16[512, 2048@(sp,tp)]   f32[256, 4096]{V:dp}   f32   key
typeAnnotation : elementType (LBRACK dimList? RBRACK)? varyingSuffix? ;
elementType : F32 | BF16 | F16 | I32 | I64 | BOOL | IDENT ;
dimList : dim (COMMA dim)* COMMA? ;
dim : size=dimExpr (AT axisSpec)? ;
axisSpec
  : IDENT                                          # singleAxis
  | LPAREN IDENT (COMMA IDENT)* COMMA? RPAREN      # multiAxis
  ;
varyingSuffix : LBRACE tag=IDENT COLON (IDENT (COMMA IDENT)* COMMA?)? RBRACE ;

// A dimension size: arithmetic without `@` (which separates the size from its axes).
dimExpr
  : op=(MINUS | PLUS) dimExpr                                 # dimUnary
  | dimExpr op=(STAR | SLASH | SLASHSLASH | PERCENT) dimExpr  # dimBinary
  | dimExpr op=(PLUS | MINUS) dimExpr                         # dimBinary
  | postfixExpr                                               # dimPostfix
  ;

block : LBRACE statement* RBRACE ;

statement
  : kind=(LET | VAR) pattern (COLON typeAnnotation)? ASSIGN value=expr SEMI   # letStatement
  | pattern op=assignOp value=expr SEMI                                       # assignStatement
  | FOR pattern IN forRange block                                             # forStatement
  | IF ifChain                                                                # ifStatement
  | RETURN value=expr? SEMI                                                   # returnStatement
  | expr SEMI                                                                 # exprStatement
  | block                                                                     # blockStatement
  ;

// The else-if chain is a loop, not a recursion, so a long chain cannot exhaust the stack.
ifChain : expr block (ELSE IF expr block)* (ELSE elseBlock=block)? ;

assignOp
  : ASSIGN | PLUS_ASSIGN | MINUS_ASSIGN | STAR_ASSIGN | SLASH_ASSIGN
  | SLASHSLASH_ASSIGN | PERCENT_ASSIGN | AT_ASSIGN
  ;

forRange
  : begin=expr DOTDOT end=expr                        # forwardRange
  | REV LPAREN begin=expr DOTDOT end=expr RPAREN      # reversedRange
  ;

// x   _   (a, b)   (a, (b, _))
pattern
  : IDENT                                                  # namePattern
  | LPAREN pattern (COMMA pattern)* trailing=COMMA? RPAREN  # tuplePattern
  ;

// Precedence, lowest first: || && == != < <= > >= + - * / // % @, then prefix - + !.
expr
  : postfixExpr                                                     # postfixExpression
  | op=(MINUS | PLUS | NOT) expr                                    # unaryExpression
  | lhs=expr op=(STAR | SLASH | SLASHSLASH | PERCENT | AT) rhs=expr  # binaryExpression
  | lhs=expr op=(PLUS | MINUS) rhs=expr                             # binaryExpression
  | lhs=expr op=(LT | LE | GT | GE) rhs=expr                        # binaryExpression
  | lhs=expr op=(EQ | NE) rhs=expr                                  # binaryExpression
  | lhs=expr op=ANDAND rhs=expr                                     # binaryExpression
  | lhs=expr op=OROR rhs=expr                                       # binaryExpression
  ;

postfixExpr : primary postfixOp* ;
postfixOp
  : LBRACK indexItem (COMMA indexItem)* COMMA? RBRACK   # indexOp
  | DOT IDENT                                            # attributeOp
  ;
indexItem
  : expr                                                  # plainIndex
  | begin=expr? COLON end=expr? (COLON step=expr?)?       # sliceIndex
  ;

primary
  : INT                                                   # intLiteral
  | FLOAT                                                 # floatLiteral
  | (TRUE | FALSE)                                        # boolLiteral
  | NONE                                                  # noneLiteral
  | STRING                                                # stringLiteral
  | typeAnnotationValue                                   # typeValue
  | callee=IDENT LPAREN argList? RPAREN                   # call
  | IDENT                                                 # name
  | LPAREN expr RPAREN                                    # parenthesized
  | LPAREN (expr COMMA (expr (COMMA expr)* COMMA?)?)? RPAREN   # tuple
  | LBRACK (expr (COMMA expr)* COMMA?)? RBRACK             # list
  ;

// A type used as a value starts with a dtype keyword (`key` stays a function name here).
typeAnnotationValue : dtype=(F32 | BF16 | F16 | I32 | I64 | BOOL) (LBRACK dimList? RBRACK)? varyingSuffix? ;

argList : argument (COMMA argument)* COMMA? ;
argument
  : keyword=IDENT ASSIGN expr   # keywordArgument
  | expr                        # positionalArgument
  ;

// ---------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------

MESH : 'mesh' ;
CONST : 'const' ;
FN : 'fn' ;
FUNC : 'func' ;
SHARD_MAP : 'shard_map' ;
UNCHECKED : 'unchecked' ;
ON : 'on' ;
AUTO : 'auto' ;
EXPLICIT : 'explicit' ;
DEVICES : 'devices' ;
LET : 'let' ;
VAR : 'var' ;
FOR : 'for' ;
IN : 'in' ;
REV : 'rev' ;
IF : 'if' ;
ELSE : 'else' ;
RETURN : 'return' ;
TRUE : 'true' ;
FALSE : 'false' ;
NONE : 'None' ;

F32 : 'f32' ;
BF16 : 'bf16' ;
F16 : 'f16' ;
I32 : 'i32' ;
I64 : 'i64' ;
BOOL : 'bool' ;

ARROW : '->' ;
DOTDOT : '..' ;
DOT : '.' ;
COMMA : ',' ;
COLON : ':' ;
SEMI : ';' ;
LPAREN : '(' ;
RPAREN : ')' ;
LBRACK : '[' ;
RBRACK : ']' ;
LBRACE : '{' ;
RBRACE : '}' ;

PLUS_ASSIGN : '+=' ;
MINUS_ASSIGN : '-=' ;
STAR_ASSIGN : '*=' ;
SLASHSLASH_ASSIGN : '//=' ;
SLASH_ASSIGN : '/=' ;
PERCENT_ASSIGN : '%=' ;
AT_ASSIGN : '@=' ;

EQ : '==' ;
NE : '!=' ;
LE : '<=' ;
GE : '>=' ;
LT : '<' ;
GT : '>' ;
ANDAND : '&&' ;
OROR : '||' ;
NOT : '!' ;
ASSIGN : '=' ;

PLUS : '+' ;
MINUS : '-' ;
STAR : '*' ;
// A line comment when not after an operand (see afterOperand above); longest match then
// prefers LINE_COMMENT over SLASHSLASH.
LINE_COMMENT : '//' {!afterOperand()}? ~[\r\n]* -> skip ;
SLASHSLASH : '//' ;
SLASH : '/' ;
PERCENT : '%' ;
AT : '@' ;

// `_` may separate digits: 1_000, 0xFFFF_FFFF (not first, last, doubled or after 0x).
INT : DECIMAL_DIGITS | '0' [xX] HEX_DIGITS ;
// Digits are required after the point so that `0..4` lexes as INT DOTDOT INT.
FLOAT : DECIMAL_DIGITS '.' DECIMAL_DIGITS EXPONENT? | DECIMAL_DIGITS EXPONENT ;
fragment DECIMAL_DIGITS : [0-9]+ ('_' [0-9]+)* ;
fragment HEX_DIGITS : [0-9a-fA-F]+ ('_' [0-9a-fA-F]+)* ;
fragment EXPONENT : [eE] [+-]? [0-9]+ ;

STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;

// \u0002 stands for a byte of a non-ASCII character (frontend/syntax/parse.cpp masks them):
// part of a name here, so that frontend/syntax/token_scan.cpp reports the name.
IDENT : [a-zA-Z_\u0002] [a-zA-Z_0-9\u0002]* ;

WS : [ \t\r\n\f]+ -> skip ;

// There are no block comments (docs/language.md, section 1).

// Lexical errors, reported by frontend/syntax/token_scan.cpp before parsing. An invalid
// character goes to a hidden channel, so the parser recovers as if it were absent.
// An unterminated string still reaches the parser as a STRING (so the statement around it
// parses); frontend/syntax/token_scan.cpp reports it, recognising the missing closing quote.
UNTERMINATED_STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '\\'? -> type(STRING) ;
INVALID_CHARACTER : . -> channel(HIDDEN) ;
